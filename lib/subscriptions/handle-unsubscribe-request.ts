import type { Firestore } from 'firebase-admin/firestore';
import type { Config } from '../runtime/config';
import { maskEmail, silentLogger, type Logger } from '../runtime/logger';
import { isCurrentLink, verifyLinkToken } from '../subscribers/link-token';
import { subscribersCollection } from '../subscribers/subscriber';
import { unsubscribeSubscriber } from './unsubscribe';
import { pageHandler } from '../http/page-handler';
import {
  alreadyUnsubscribedPage,
  askUnsubscribePage,
  unsubscribedPage,
  unsubscribeFailedPage,
  unsubscribeServerErrorPage,
} from './unsubscribe-page';

export type UnsubscribeDeps = { db: Firestore; config: Pick<Config, 'LINK_SECRET'>; now: Date; log?: Logger };

/**
 * GET|POST /unsubscribe?token=. GET reads and shows the question; POST unsubscribes. The body of
 * the POST is not needed: RFC 8058 one-click sends `List-Unsubscribe=One-Click`, the page's button
 * sends the same, and either way the signed token in the URL is the whole credential.
 */
export const handleUnsubscribeRequest = pageHandler<UnsubscribeDeps>({
  name: 'unsubscribe',
  methods: {
    GET: (request, deps) => ask(tokenOf(request), deps),
    POST: (request, deps) => unsubscribe(tokenOf(request), deps, deps.log ?? silentLogger),
  },
  errorPage: unsubscribeServerErrorPage,
});

const tokenOf = (request: Request) => new URL(request.url).searchParams.get('token');

async function ask(token: string | null, deps: UnsubscribeDeps): Promise<Response> {
  const check = verifyLinkToken(token, { secret: deps.config.LINK_SECRET, purpose: 'unsubscribe', now: deps.now });
  if (!check.ok) return unsubscribeFailedPage(check.reason);
  const subscriber = (await subscribersCollection(deps.db).doc(check.claims.uid).get()).data();
  if (!subscriber) return unsubscribeFailedPage('unknown-subscriber');
  // A link from an earlier subscription (or one revoked) still unsubscribes, but its page names nobody and tells no state.
  if (!isCurrentLink(check.claims, subscriber)) return askUnsubscribePage({ token: token ?? '', maskedEmail: null });
  if (subscriber.status === 'unsubscribed') return alreadyUnsubscribedPage();
  return askUnsubscribePage({ token: token ?? '', maskedEmail: subscriber.email ? maskEmail(subscriber.email) : null });
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
  return unsubscribedPage({ alreadyUnsubscribed: result.alreadyUnsubscribed && !result.olderLink });
}
