import { withDeadline } from '../../lib/http/request-deadline';
import { withProductionDeps } from '../../lib/wiring/production-deps';
import { handleNotAFitRequest } from '../../lib/subscriptions/handle-not-a-fit-request';
import { notAFitServerErrorPage } from '../../lib/subscriptions/not-a-fit-page';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET shows the posting and one button (and records nothing: mail scanners open links); POST records "not a fit" once. */
const handle = withProductionDeps(
  withDeadline((request, deps) => handleNotAFitRequest(request, { db: deps.db, config: deps.config, now: new Date(), log: deps.log }), {
    unavailable: notAFitServerErrorPage,
  }),
  notAFitServerErrorPage,
);

export const GET = handle;
export const POST = handle;
