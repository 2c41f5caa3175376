import type { Firestore } from 'firebase-admin/firestore';
import type { Config } from '../runtime/config';
import { maskEmail, silentLogger, type Logger } from '../runtime/logger';
import { checkConfirmLink, confirmSubscription } from './confirm';
import { askConfirmPage, confirmedPage, confirmFailedPage, confirmServerErrorPage } from './confirm-page';
import { preferencesUrl } from '../subscribers/link-token';
import { pageHandler } from '../http/page-handler';

export type ConfirmDeps = { db: Firestore; config: Pick<Config, 'LINK_SECRET' | 'APP_URL' | 'DIGEST_HOUR_UTC'>; now: Date; log?: Logger };

/**
 * GET|POST /confirm?token=. GET reads and shows the one button (mail scanners prefetch links, so
 * a GET never changes anything); POST confirms. The signed token in the URL is the whole credential,
 * for one signup (its nonce) and once.
 */
export const handleConfirmRequest = pageHandler<ConfirmDeps>({
  name: 'confirm',
  methods: {
    GET: (request, deps) => ask(tokenOf(request), deps),
    POST: (request, deps) => confirm(tokenOf(request), deps, deps.log ?? silentLogger),
  },
  errorPage: confirmServerErrorPage,
});

const tokenOf = (request: Request) => new URL(request.url).searchParams.get('token');

async function ask(token: string | null, deps: ConfirmDeps): Promise<Response> {
  const check = await checkConfirmLink(deps.db, { token, secret: deps.config.LINK_SECRET, now: deps.now });
  if (!check.ok) return confirmFailedPage(check.reason);
  const { subscriber } = check;
  return askConfirmPage({
    token: token ?? '',
    maskedEmail: subscriber.email ? maskEmail(subscriber.email) : null,
    preferences: subscriber,
    digestHourUtc: deps.config.DIGEST_HOUR_UTC,
  });
}

async function confirm(token: string | null, deps: ConfirmDeps, log: Logger): Promise<Response> {
  const result = await confirmSubscription(deps.db, { token, secret: deps.config.LINK_SECRET, now: deps.now });
  if (!result.ok) {
    log('confirm.refused', { reason: result.reason });
    return confirmFailedPage(result.reason);
  }
  log('subscriber.confirmed', { to: maskEmail(result.subscriber.email) });
  // Only the request that confirmed gets the preferences link; a reused confirmation link opens nothing.
  const link = preferencesUrl({
    appUrl: deps.config.APP_URL,
    uid: result.subscriber.id,
    linkVersion: result.subscriber.linkVersion,
    secret: deps.config.LINK_SECRET,
    issuedAt: deps.now,
  });
  return confirmedPage({ subscriber: result.subscriber, preferencesUrl: link, digestHourUtc: deps.config.DIGEST_HOUR_UTC });
}
