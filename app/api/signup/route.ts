import { unavailableJson, withDeadline } from '../../../lib/http/request-deadline';
import { withProductionDeps } from '../../../lib/wiring/production-deps';
import { handleSignupRequest } from '../../../lib/subscriptions/handle-signup-request';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** POST only: JSON from the landing page's script, or the form itself when there is no script. */
export const POST = withProductionDeps(
  withDeadline((request, deps) => handleSignupRequest(request, { ...deps, now: new Date() }), { unavailable: unavailableJson }),
);
