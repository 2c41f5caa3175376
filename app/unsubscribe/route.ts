import { withDeadline } from '../../lib/http/request-deadline';
import { withProductionDeps } from '../../lib/wiring/production-deps';
import { handleUnsubscribeRequest } from '../../lib/subscriptions/handle-unsubscribe-request';
import { unsubscribeServerErrorPage } from '../../lib/subscriptions/unsubscribe-page';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET shows the question, POST (the page's button or RFC 8058 one-click) unsubscribes. */
const handle = withProductionDeps(
  withDeadline((request, deps) => handleUnsubscribeRequest(request, { db: deps.db, config: deps.config, now: new Date(), log: deps.log }), {
    unavailable: unsubscribeServerErrorPage,
  }),
  unsubscribeServerErrorPage,
);

export const GET = handle;
export const POST = handle;
