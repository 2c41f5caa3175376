import { withDeadline } from '../../../lib/http/request-deadline';
import { withProductionDeps } from '../../../lib/wiring/production-deps';
import { handleUndoUnsubscribeRequest } from '../../../lib/subscriptions/handle-undo-unsubscribe-request';
import { undoServerErrorPage } from '../../../lib/subscriptions/undo-unsubscribe-page';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET asks, POST (the button) gives back the subscription an unsubscribe ended, within its window. */
const handle = withProductionDeps(
  withDeadline(
    (request, deps) => handleUndoUnsubscribeRequest(request, { db: deps.db, config: deps.config, now: new Date(), log: deps.log }),
    {
      unavailable: undoServerErrorPage,
    },
  ),
  undoServerErrorPage,
);

export const GET = handle;
export const POST = handle;
