import { withDeadline } from '../../lib/http/request-deadline';
import { withProductionDeps } from '../../lib/runtime';
import { handlePreferencesRequest } from '../../lib/subscribers/handle-preferences-request';
import { preferencesServerErrorPage } from '../../lib/subscribers/preferences-page';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET shows the subscriber's form (and changes nothing); POST saves, pauses or resumes. */
const handle = withProductionDeps(
  withDeadline((request, deps) => handlePreferencesRequest(request, { db: deps.db, config: deps.config, now: new Date(), log: deps.log }), {
    unavailable: preferencesServerErrorPage,
  }),
  preferencesServerErrorPage,
);

export const GET = handle;
export const POST = handle;
