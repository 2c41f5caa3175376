import { randomUUID } from 'node:crypto';
import type { Config } from '../runtime/config';
import { maskEmail, silentLogger, type Logger } from '../runtime/logger';
import { sendRowNow, type SendNowDeps, type SendNowResult } from '../outbox/send-now';
import { welcomeSettingsOf } from './welcome';
import { checkConfirmLink, confirmSubscription } from './confirm';
import {
  askConfirmPage,
  confirmedPage,
  confirmFailedPage,
  confirmServerErrorPage,
  EMAIL_PREFERENCES_ACTION,
  preferencesLinkRequestedPage,
} from './confirm-page';
import { emailPreferencesLink } from './email-preferences-link';
import { readForm } from '../http/read-body';
import { clientAddressOf } from '../http/client-address';
import { preferencesUrl } from '../subscribers/link-token';
import { pageHandler } from '../http/page-handler';

/** The confirmation sends its welcome at once, as signup sends its email: through the process's send limiter. */
export type ConfirmDeps = Omit<SendNowDeps, 'config' | 'log'> & {
  config: Pick<
    Config,
    'LINK_SECRET' | 'APP_URL' | 'MAIL_FROM' | 'DIGEST_HOUR_UTC' | 'RETENTION_DAYS' | 'tuning' | 'VERCEL' | 'TRUSTED_PROXY_HOPS'
  >;
  now: Date;
  log?: Logger;
};

/**
 * GET|POST /confirm?token=. GET reads and shows the one button (mail scanners prefetch links, so
 * a GET never changes anything); POST confirms. The signed token in the URL is the whole credential,
 * for one signup (its nonce) and once. A used link's page offers, instead of a dead end, a POST
 * of `action=email-preferences`: the preferences link is emailed to the subscriber, never shown
 * (./email-preferences-link.ts), so a used link never becomes a standing login.
 */
export const handleConfirmRequest = pageHandler<ConfirmDeps>({
  name: 'confirm',
  methods: {
    GET: (request, deps) => ask(tokenOf(request), deps),
    POST: async (request, deps) => {
      const log = deps.log ?? silentLogger;
      const form = await readForm(request, MAX_CONFIRM_BODY_BYTES);
      if (form.ok && form.fields.get('action') === EMAIL_PREFERENCES_ACTION)
        return emailPreferences(tokenOf(request), clientAddressOf(request, deps.config), deps, log);
      return confirm(tokenOf(request), deps, log);
    },
  },
  errorPage: confirmServerErrorPage,
});

const tokenOf = (request: Request) => new URL(request.url).searchParams.get('token');

/** The confirm button posts nothing, the used link's button one field. */
const MAX_CONFIRM_BODY_BYTES = 1024;

/** Only for a link the subscriber's confirmation used: any other stays the dead end it was, with its reason. */
async function emailPreferences(token: string | null, clientAddress: string, deps: ConfirmDeps, log: Logger): Promise<Response> {
  const check = await checkConfirmLink(deps.db, { token, secret: deps.config.LINK_SECRET, now: deps.now });
  // Not used yet: there is nothing to email, the page's own button confirms.
  if (check.ok) return ask(token, deps);
  if (check.reason !== 'used' || !check.uid) return confirmFailedPage(check.reason);
  const outcome = await emailPreferencesLink({ ...deps, log }, { uid: check.uid, clientAddress, now: deps.now });
  if (outcome.kind === 'held-back') log('preferences_link.held_back', { reason: outcome.reason });
  return preferencesLinkRequestedPage(outcome);
}

async function ask(token: string | null, deps: ConfirmDeps): Promise<Response> {
  const check = await checkConfirmLink(deps.db, { token, secret: deps.config.LINK_SECRET, now: deps.now });
  if (!check.ok) return confirmFailedPage(check.reason, token);
  const { subscriber } = check;
  return askConfirmPage({
    token: token ?? '',
    maskedEmail: subscriber.email ? maskEmail(subscriber.email) : null,
    preferences: subscriber,
    digestHourUtc: deps.config.DIGEST_HOUR_UTC,
  });
}

async function confirm(token: string | null, deps: ConfirmDeps, log: Logger): Promise<Response> {
  const runId = `confirm-${randomUUID()}`;
  const result = await confirmSubscription(deps.db, {
    token,
    secret: deps.config.LINK_SECRET,
    now: deps.now,
    runId,
    welcome: welcomeSettingsOf(deps.config),
  });
  if (!result.ok) {
    log('confirm.refused', { reason: result.reason });
    return confirmFailedPage(result.reason, token);
  }
  const { subscriber, welcome } = result;
  let sent: SendNowResult | 'error' | null = null;
  if (welcome) {
    try {
      sent = await sendRowNow({ ...deps, log }, { emailKey: welcome.emailKey, uid: subscriber.id, runId });
    } catch (error) {
      // The row is in the outbox with the activation: the next cron run sends it under the same key.
      sent = 'error';
      log('welcome.send_error', { error: error instanceof Error ? error.message : String(error) });
    }
  }
  log('subscriber.confirmed', { to: maskEmail(subscriber.email), welcome: welcome?.postings ?? 0, sent });
  // Only the request that confirmed gets the preferences link; a reused confirmation link opens nothing.
  const link = preferencesUrl({
    appUrl: deps.config.APP_URL,
    uid: subscriber.id,
    linkVersion: subscriber.linkVersion,
    secret: deps.config.LINK_SECRET,
    issuedAt: deps.now,
  });
  return confirmedPage({
    subscriber,
    preferencesUrl: link,
    digestHourUtc: deps.config.DIGEST_HOUR_UTC,
    now: deps.now,
    welcome: welcome ? { postings: welcome.postings, sent: sent === 'sent' } : null,
  });
}
