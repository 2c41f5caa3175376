import { productionDeps } from '../lib/wiring/production-deps';
import { landingPageResponse } from '../lib/subscriptions/landing-page';

export const runtime = 'nodejs';
// Rendered per request: the sources and the week's sample card are read fresh.
export const dynamic = 'force-dynamic';

/** GET / (and HEAD): the landing page, in the shell every page shares (lib/http/page.tsx). */
export const GET = () => landingPageResponse({ deps: productionDeps, now: new Date() });
