import { withDeadline } from '../../lib/http/request-deadline';
import { withProductionDeps } from '../../lib/wiring/production-deps';
import { handleArchiveRequest } from '../../lib/archive/handle-archive-request';
import { archiveServerErrorPage } from '../../lib/archive/archive-page';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET shows what Scout sent the subscriber in the last 30 days; it changes nothing. */
const handle = withProductionDeps(
  withDeadline((request, deps) => handleArchiveRequest(request, { db: deps.db, config: deps.config, now: new Date(), log: deps.log }), {
    unavailable: archiveServerErrorPage,
  }),
  archiveServerErrorPage,
);

export const GET = handle;
