import type { Firestore } from 'firebase-admin/firestore';
import type { Config } from '../runtime/config';
import { silentLogger, type Logger } from '../runtime/logger';
import { pageHandler } from '../http/page-handler';
import { checkUndoLink, undoUnsubscribe } from './undo-unsubscribe';
import { askUndoPage, undoFailedPage, undonePage, undoServerErrorPage } from './undo-unsubscribe-page';

export type UndoUnsubscribeDeps = { db: Firestore; config: Pick<Config, 'LINK_SECRET'>; now: Date; log?: Logger };

/**
 * GET|POST /unsubscribe/undo?token=. The link is shown once, on the page of the unsubscribe it
 * undoes (never emailed); GET only asks, POST gives the subscription back (./undo-unsubscribe.ts).
 */
export const handleUndoUnsubscribeRequest = pageHandler<UndoUnsubscribeDeps>({
  name: 'undo-unsubscribe',
  methods: {
    GET: async (request, deps) => {
      const token = tokenOf(request);
      const check = await checkUndoLink(deps.db, { token, secret: deps.config.LINK_SECRET, now: deps.now });
      if (!check.ok) return undoFailedPage(check.reason);
      return check.alreadyUndone ? undonePage(check) : askUndoPage({ token: token ?? '' });
    },
    POST: async (request, deps) => {
      await request.body?.cancel().catch(() => undefined);
      const log = deps.log ?? silentLogger;
      const result = await undoUnsubscribe(deps.db, { token: tokenOf(request), secret: deps.config.LINK_SECRET, now: deps.now });
      if (!result.ok) {
        log('undo_unsubscribe.refused', { reason: result.reason });
        return undoFailedPage(result.reason);
      }
      if (!result.alreadyUndone) log('subscriber.resubscribed', { status: result.status });
      return undonePage(result);
    },
  },
  errorPage: undoServerErrorPage,
});

const tokenOf = (request: Request) => new URL(request.url).searchParams.get('token');
