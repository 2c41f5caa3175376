import { withDeadline } from '../../lib/http/request-deadline';
import { withProductionDeps } from '../../lib/wiring/production-deps';
import { handlePreferencesRequest } from '../../lib/subscriptions/handle-preferences-request';
import { preferencesServerErrorPage } from '../../lib/subscriptions/preferences-status-pages';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET shows the subscriber's form (and changes nothing); POST saves, pauses or resumes. */
const handle = withProductionDeps(
  withDeadline(
    (request, deps) =>
      handlePreferencesRequest(request, {
        db: deps.db,
        config: deps.config,
        now: new Date(),
        log: deps.log,
        sendChannelTest: deps.sendChannelTest,
      }),
    {
      unavailable: preferencesServerErrorPage,
    },
  ),
  preferencesServerErrorPage,
);

export const GET = handle;
export const POST = handle;
