import { withDeadline } from '../../lib/http/request-deadline';
import { withProductionDeps } from '../../lib/wiring/production-deps';
import { feedUnavailable, handleFeedRequest } from '../../lib/archive/handle-feed-request';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The subscriber's private Atom feed, for a feed reader; answers 304 to a reader whose copy is current. */
const handle = withProductionDeps(
  withDeadline((request, deps) => handleFeedRequest(request, { db: deps.db, config: deps.config, now: new Date(), log: deps.log }), {
    unavailable: feedUnavailable,
  }),
  feedUnavailable,
);

export const GET = handle;
export const HEAD = handle;
