import type { Firestore } from 'firebase-admin/firestore';
import type { Config } from '../runtime/config';
import { maskEmail, silentLogger, type Logger } from '../runtime/logger';
import { readForm } from '../http/read-body';
import { isCurrentLink, undoUnsubscribeUrl, verifyLinkToken } from '../subscribers/link-token';
import { subscribersCollection, type Subscriber } from '../subscribers/subscriber';
import { unsubscribeSubscriber } from './unsubscribe';
import { canEditPreferences, changeStatus, switchToWeekly } from './preferences';
import { pageHandler } from '../http/page-handler';
import {
  alreadyUnsubscribedPage,
  askUnsubscribePage,
  keepRefusedPage,
  keptSubscribedPage,
  KEEP_ACTIONS,
  unsubscribedPage,
  unsubscribeFailedPage,
  unsubscribeServerErrorPage,
  type KeepAction,
  type UnsubscribeOffers,
} from './unsubscribe-page';

export type UnsubscribeDeps = {
  db: Firestore;
  config: Pick<Config, 'LINK_SECRET' | 'APP_URL' | 'DIGEST_HOUR_UTC'>;
  now: Date;
  log?: Logger;
};

/** The page's forms are a field or two; RFC 8058's body is one. */
const MAX_UNSUBSCRIBE_BODY_BYTES = 2 * 1024;

/**
 * GET|POST /unsubscribe?token=. GET reads and shows the question; POST unsubscribes. RFC 8058
 * one-click sends `List-Unsubscribe=One-Click`, the page's button sends the same, and either way
 * the signed token in the URL is the whole credential. The page's other buttons post
 * `action=pause` or `action=weekly` instead, which keep the subscription with less mail; any post
 * without one of those (whatever its body, even unreadable) unsubscribes, so the opt-out never
 * depends on the body.
 */
export const handleUnsubscribeRequest = pageHandler<UnsubscribeDeps>({
  name: 'unsubscribe',
  methods: {
    GET: (request, deps) => ask(tokenOf(request), deps),
    POST: async (request, deps) => {
      const log = deps.log ?? silentLogger;
      const keep = await keepActionOf(request);
      return keep ? keepSubscribed(tokenOf(request), keep, deps, log) : unsubscribe(tokenOf(request), deps, log);
    },
  },
  errorPage: unsubscribeServerErrorPage,
});

const tokenOf = (request: Request) => new URL(request.url).searchParams.get('token');

async function keepActionOf(request: Request): Promise<KeepAction | null> {
  const form = await readForm(request, MAX_UNSUBSCRIBE_BODY_BYTES);
  if (!form.ok) return null;
  const action = form.fields.get('action');
  return (KEEP_ACTIONS as readonly string[]).includes(action ?? '') ? (action as KeepAction) : null;
}

/** The gentler choices, for a subscriber who has them: pausing an active one, a digest a week for one not on it already. */
const offersFor = (subscriber: Subscriber): UnsubscribeOffers => ({
  pause: subscriber.status === 'active',
  weekly: canEditPreferences(subscriber.status) && subscriber.mode !== 'weekly',
});

async function ask(token: string | null, deps: UnsubscribeDeps): Promise<Response> {
  const check = verifyLinkToken(token, { secret: deps.config.LINK_SECRET, purpose: 'unsubscribe', now: deps.now });
  if (!check.ok) return unsubscribeFailedPage(check.reason);
  const subscriber = (await subscribersCollection(deps.db).doc(check.claims.uid).get()).data();
  if (!subscriber) return unsubscribeFailedPage('unknown-subscriber');
  // A link from an earlier subscription (or one revoked) still unsubscribes, but its page names nobody and tells no state.
  if (!isCurrentLink(check.claims, subscriber)) return askUnsubscribePage({ token: token ?? '', maskedEmail: null });
  if (subscriber.status === 'unsubscribed') return alreadyUnsubscribedPage();
  return askUnsubscribePage({
    token: token ?? '',
    maskedEmail: subscriber.email ? maskEmail(subscriber.email) : null,
    offers: offersFor(subscriber),
  });
}

async function unsubscribe(token: string | null, deps: UnsubscribeDeps, log: Logger): Promise<Response> {
  const result = await unsubscribeSubscriber(deps.db, { token, secret: deps.config.LINK_SECRET, now: deps.now });
  if (!result.ok) {
    log('unsubscribe.refused', { reason: result.reason });
    return unsubscribeFailedPage(result.reason);
  }
  if (!result.alreadyUnsubscribed || result.skippedDeliveries > 0) {
    log('subscriber.unsubscribed', { alreadyUnsubscribed: result.alreadyUnsubscribed, skippedDeliveries: result.skippedDeliveries });
  }
  // Undo only for the request whose own opt-out this was, through a current link: an older link's page tells nothing.
  const undo =
    result.undoable && !result.olderLink
      ? new URL(
          undoUnsubscribeUrl({
            appUrl: deps.config.APP_URL,
            uid: result.uid,
            secret: deps.config.LINK_SECRET,
            issuedAt: deps.now,
            linkVersion: result.undoable.linkVersion,
          }),
        )
      : null;
  return unsubscribedPage({
    alreadyUnsubscribed: result.alreadyUnsubscribed && !result.olderLink,
    undoAction: undo ? `${undo.pathname}${undo.search}` : null,
  });
}

/** Pause or weekly from the unsubscribe page: only through a current link (an older one can only unsubscribe). */
async function keepSubscribed(token: string | null, action: KeepAction, deps: UnsubscribeDeps, log: Logger): Promise<Response> {
  const check = verifyLinkToken(token, { secret: deps.config.LINK_SECRET, purpose: 'unsubscribe', now: deps.now });
  if (!check.ok) return unsubscribeFailedPage(check.reason);
  const { uid } = check.claims;
  // Read for the link's version only: the write below is guarded by the version it decides on.
  const subscriber = (await subscribersCollection(deps.db).doc(uid).get()).data();
  if (!subscriber) return unsubscribeFailedPage('unknown-subscriber');
  if (!isCurrentLink(check.claims, subscriber)) {
    log('unsubscribe.keep_refused', { action, reason: 'link-version' });
    return keepRefusedPage({ token: token ?? '', reason: 'older-link' });
  }
  const result =
    action === 'pause'
      ? await changeStatus(deps.db, { uid, action: 'pause', now: deps.now })
      : await switchToWeekly(deps.db, { uid, now: deps.now, digestHourUtc: deps.config.DIGEST_HOUR_UTC });
  if (!result.ok) {
    log('unsubscribe.keep_refused', { action, reason: result.kind });
    return result.kind === 'unknown-subscriber'
      ? unsubscribeFailedPage('unknown-subscriber')
      : keepRefusedPage({ token: token ?? '', reason: 'not-subscribed' });
  }
  log('unsubscribe.kept', { action, changed: result.changed, skippedDeliveries: result.skippedDeliveries });
  return keptSubscribedPage({ action, changed: result.changed, token: token ?? '' });
}
