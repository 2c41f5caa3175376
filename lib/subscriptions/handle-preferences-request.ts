import type { Firestore } from 'firebase-admin/firestore';
import { aiEnabled, telegramEnabled, type Config } from '../runtime/config';
import { maskEmail, silentLogger, type Logger } from '../runtime/logger';
import { pageHandler } from '../http/page-handler';
import { readForm } from '../http/read-body';
import { clientAddressOf } from '../http/client-address';
import { parsePreview } from '../preview/preview-input';
import { invalidPreview, type PreviewPanelState } from '../preview/preview-panel';
import { runPreview } from '../preview/run-preview';
import { describeCadence } from '../subscribers/describe-schedule';
import { isCurrentLink, unsubscribeUrl, verifyLinkToken, type LinkClaims } from '../subscribers/link-token';
import { addExclude, canEditPreferences, changeStatus, updatePreferences } from './preferences';
import { readExcludeSuggestion } from '../feedback/read-exclude-suggestion';
import { normaliseKeyword } from '../query/keyword-term';
import { formValuesOf, preferencesFormPage, type PreferenceFormValues } from './preferences-page';
import {
  linksRevokedPage,
  preferencesBadRequestPage,
  preferencesLinkFailedPage,
  preferencesServerErrorPage,
  preferencesUnavailablePage,
} from './preferences-status-pages';
import type { PreferenceFieldErrors } from '../subscribers/preferences-schema';
import { subscribersCollection, type Subscriber } from '../subscribers/subscriber';
import { archiveLinksFor, REVOKE_FEED_ACTION, REVOKE_LINKS_ACTION } from '../archive/archive-links';
import { revokeFeedUrl } from '../archive/revoke-feed-url';
import { revokeLinks } from './revoke-links';
import { postedPreferences } from './posted-preferences';
import { isSameOrigin } from '../http/same-origin';
import { isDigestMode } from '../subscribers/subscriber';
import { isChannelAction, type ChannelAction, type ChannelPageState } from './channel-answer';
import { runChannelAction } from './channel-actions';
import type { SendChannelTest } from './channel-test-message';

export type PreferencesDeps = {
  db: Firestore;
  config: Pick<
    Config,
    | 'LINK_SECRET'
    | 'APP_URL'
    | 'DIGEST_HOUR_UTC'
    | 'AI_BASE_URL'
    | 'AI_MODEL'
    | 'VERCEL'
    | 'TRUSTED_PROXY_HOPS'
    | 'CHANNEL_ALLOW_LOOPBACK'
    | 'TELEGRAM_BOT_TOKEN'
    | 'TELEGRAM_BOT_USERNAME'
  >;
  now: Date;
  log?: Logger;
  /** Sends a channel's verification message (./channel-test-message.ts); the channel actions need it. */
  sendChannelTest?: SendChannelTest;
};

/** The form is a few short fields; anything bigger is not our form. */
export const MAX_PREFERENCES_BODY_BYTES = 16 * 1024;

const ACTIONS = ['save', 'exclude', 'pause', 'resume', REVOKE_FEED_ACTION, REVOKE_LINKS_ACTION] as const;
type FormAction = (typeof ACTIONS)[number];

/**
 * GET|POST /preferences?token=. The signed token in the URL is the whole credential (purpose
 * `preferences`). GET only reads and shows the form — mail scanners open every link. POST
 * (form-encoded, `action=save|exclude|pause|resume`) changes the subscriber through ./preferences;
 * `action=revoke-feed` revokes the private feed URL (lib/archive/revoke-feed-url.ts); `action=revoke-links`
 * revokes every emailed link and the feed URL (./revoke-links.ts). A link whose `linkVersion` is not
 * the subscriber's current one opens nothing: it answers as an expired link.
 * The page also proposes one exclude from the subscriber's "not a fit" feedback, with its measured
 * effect (lib/feedback/read-exclude-suggestion.ts); `action=exclude&term=…` adds it. The form's
 * Preview button (`preview=1`, sent only when pressed) previews the fields as typed (lib/preview)
 * and saves nothing. `action=channel-…` adds, verifies, pauses, resumes or removes a channel
 * beyond email (./channel-actions.ts). Every POST must come from Scout's own origin (same-origin.ts).
 */
export const handlePreferencesRequest = pageHandler<PreferencesDeps>({
  name: 'preferences',
  methods: {
    GET: (request, deps) => show(request, deps),
    POST: (request, deps) => submit(request, deps, deps.log ?? silentLogger),
  },
  errorPage: preferencesServerErrorPage,
});

type Opened = { ok: true; token: string; uid: string; claims: LinkClaims } | { ok: false; response: Response };

async function openLink(request: Request, deps: PreferencesDeps): Promise<Opened> {
  const token = new URL(request.url).searchParams.get('token');
  const check = verifyLinkToken(token, { secret: deps.config.LINK_SECRET, purpose: 'preferences', now: deps.now });
  if (!check.ok) return { ok: false, response: await preferencesLinkFailedPage(check.reason) };
  return { ok: true, token: token!, uid: check.claims.uid, claims: check.claims };
}

async function show(request: Request, deps: PreferencesDeps): Promise<Response> {
  const link = await openLink(request, deps);
  if (!link.ok) return link.response;
  const subscriber = (await subscribersCollection(deps.db).doc(link.uid).get()).data();
  if (!subscriber) return preferencesUnavailablePage({ status: 'unknown' });
  // Before anything about the subscriber: a link of an ended subscription or a revoked one shows nothing of it.
  if (!isCurrentLink(link.claims, subscriber)) return preferencesLinkFailedPage('expired');
  if (!canEditPreferences(subscriber.status)) return preferencesUnavailablePage({ status: subscriber.status });
  return formPage(deps, { status: 200, token: link.token, subscriber, values: formValuesOf(subscriber) });
}

async function submit(request: Request, deps: PreferencesDeps, log: Logger): Promise<Response> {
  if (!isSameOrigin(request, deps.config.APP_URL)) {
    await request.body?.cancel().catch(() => undefined);
    log('preferences.refused', { reason: 'origin' });
    return preferencesBadRequestPage({ status: 403, message: 'Scout takes this form only from its own pages.' });
  }
  const link = await openLink(request, deps);
  if (!link.ok) {
    await request.body?.cancel().catch(() => undefined);
    log('preferences.refused', { reason: 'link' });
    return link.response;
  }
  const form = await readPreferencesForm(request);
  if (!form.ok) return form.response;
  const action = (form.fields.get('action') ?? 'save') as FormAction | ChannelAction;
  if (!ACTIONS.includes(action as FormAction) && !isChannelAction(action))
    return preferencesBadRequestPage({ status: 400, message: 'The form asked for something Scout does not do.' });

  // Read for the page only: every write below re-reads and is guarded by the version it decided on.
  const current = (await subscribersCollection(deps.db).doc(link.uid).get()).data();
  if (!current) return preferencesUnavailablePage({ status: 'unknown' });
  if (!isCurrentLink(link.claims, current)) {
    log('preferences.refused', { reason: 'link-version' });
    return preferencesLinkFailedPage('expired');
  }
  if (!canEditPreferences(current.status)) return preferencesUnavailablePage({ status: current.status, httpStatus: 409 });

  if (isChannelAction(action)) return channelAction(deps, log, { token: link.token, uid: link.uid, current, action, fields: form.fields });
  if (form.fields.has('preview')) return preview(deps, log, { request, token: link.token, current, fields: form.fields });
  if (action === 'save') return save(deps, log, { token: link.token, uid: link.uid, current, fields: form.fields });
  if (action === 'exclude') return exclude(deps, log, { token: link.token, uid: link.uid, current, term: form.fields.get('term') ?? '' });
  if (action === REVOKE_FEED_ACTION) return revokeFeed(deps, log, { token: link.token, uid: link.uid });
  if (action === REVOKE_LINKS_ACTION) return revokeAllLinks(deps, log, link.uid);

  const result = await changeStatus(deps.db, { uid: link.uid, action, now: deps.now });
  if (!result.ok) {
    log('preferences.refused', { action, reason: result.kind });
    return result.kind === 'unknown-subscriber'
      ? preferencesUnavailablePage({ status: 'unknown' })
      : preferencesUnavailablePage({ status: result.status, httpStatus: 409 });
  }
  log('preferences.status', { action, changed: result.changed, skippedDeliveries: result.skippedDeliveries });
  const notice =
    action === 'pause'
      ? result.changed
        ? 'Paused. Scout will send you nothing until you resume.'
        : 'Your emails were already paused.'
      : result.changed
        ? 'Resumed. Scout will email you new matching postings again.'
        : 'Your emails were already on.';
  return formPage(deps, { status: 200, token: link.token, subscriber: result.subscriber, values: formValuesOf(result.subscriber), notice });
}

async function save(
  deps: PreferencesDeps,
  log: Logger,
  input: { token: string; uid: string; current: Subscriber; fields: URLSearchParams },
): Promise<Response> {
  const { posted, values } = postedPreferences(input.fields, input.current, aiEnabled(deps.config));
  const result = await updatePreferences(deps.db, {
    uid: input.uid,
    input: posted,
    now: deps.now,
    digestHourUtc: deps.config.DIGEST_HOUR_UTC,
  });
  if (!result.ok) {
    log('preferences.refused', { action: 'save', reason: result.kind });
    if (result.kind === 'invalid') {
      return formPage(deps, { status: 400, token: input.token, subscriber: input.current, values, errors: result.errors });
    }
    return result.kind === 'unknown-subscriber'
      ? preferencesUnavailablePage({ status: 'unknown' })
      : preferencesUnavailablePage({ status: result.status, httpStatus: 409 });
  }
  log('preferences.saved', {
    mode: result.subscriber.mode,
    keywords: result.subscriber.keywords.length,
    profileVersion: result.subscriber.profileVersion,
    skippedDeliveries: result.skippedDeliveries,
  });
  const dropped =
    result.skippedDeliveries > 0
      ? ` ${result.skippedDeliveries === 1 ? 'One posting' : `${result.skippedDeliveries} postings`} waiting for your digest will not be sent.`
      : '';
  return formPage(deps, {
    status: 200,
    token: input.token,
    subscriber: result.subscriber,
    values: formValuesOf(result.subscriber),
    notice: `Saved. New postings are matched against these preferences from now on.${dropped}`,
  });
}

/**
 * The Preview button without a script: the form again as typed, its preview panel filled in
 * (lib/preview, rate-limited per client like POST /api/preview), or the fields a preview cannot
 * read marked. Nothing is saved.
 */
async function preview(
  deps: PreferencesDeps,
  log: Logger,
  input: { request: Request; token: string; current: Subscriber; fields: URLSearchParams },
): Promise<Response> {
  const { values } = postedPreferences(input.fields, input.current, aiEnabled(deps.config));
  const page = { token: input.token, subscriber: input.current, values };
  const parsed = parsePreview(values, input.current);
  if (!parsed.ok) {
    // The values are always an object, so every message has a field of the form to sit next to.
    const { body: _body, ...errors } = parsed.fields;
    return formPage(deps, { ...page, status: 400, errors, preview: invalidPreview(parsed.fields) });
  }
  const outcome = await runPreview(deps, { clientAddress: clientAddressOf(input.request, deps.config), profile: parsed.input });
  if (outcome.kind === 'rate-limited') {
    log('preferences.refused', { action: 'preview', reason: 'rate-limit' });
    const retryAfterSec = outcome.retryAfterSec;
    return formPage(deps, { ...page, status: 429, preview: { kind: 'rate-limited', retryAfterSec }, retryAfterSec });
  }
  if (outcome.kind === 'busy') {
    log('preferences.refused', { action: 'preview', reason: 'window-budget' });
    const retryAfterSec = outcome.retryAfterSec;
    return formPage(deps, { ...page, status: 503, preview: { kind: 'busy', retryAfterSec }, retryAfterSec });
  }
  return formPage(deps, { ...page, status: 200, preview: { kind: 'shown', preview: outcome.preview } });
}

async function exclude(deps: PreferencesDeps, log: Logger, input: { token: string; uid: string; current: Subscriber; term: string }) {
  const result = await addExclude(deps.db, { uid: input.uid, term: input.term, now: deps.now });
  if (!result.ok) {
    log('preferences.refused', { action: 'exclude', reason: result.kind });
    if (result.kind === 'invalid') {
      const values = formValuesOf(input.current);
      return formPage(deps, { status: 400, token: input.token, subscriber: input.current, values, errors: result.errors });
    }
    return result.kind === 'unknown-subscriber'
      ? preferencesUnavailablePage({ status: 'unknown' })
      : preferencesUnavailablePage({ status: result.status, httpStatus: 409 });
  }
  const term = normaliseKeyword(input.term);
  log('preferences.saved', {
    action: 'exclude',
    excludes: result.subscriber.excludes.length,
    profileVersion: result.subscriber.profileVersion,
    skippedDeliveries: result.skippedDeliveries,
  });
  return formPage(deps, {
    status: 200,
    token: input.token,
    subscriber: result.subscriber,
    values: formValuesOf(result.subscriber),
    notice: `Added “${term}” to your excludes. New postings that mention it are skipped from now on.`,
  });
}

/** "Revoke and make a new feed URL" (lib/archive/revoke-feed-url.ts): the page comes back with the new URL. */
async function revokeFeed(deps: PreferencesDeps, log: Logger, input: { token: string; uid: string }): Promise<Response> {
  const result = await revokeFeedUrl(deps.db, { uid: input.uid, now: deps.now });
  if (!result.ok) {
    log('preferences.refused', { action: REVOKE_FEED_ACTION, reason: result.kind });
    return result.kind === 'unknown-subscriber'
      ? preferencesUnavailablePage({ status: 'unknown' })
      : preferencesUnavailablePage({ status: result.status, httpStatus: 409 });
  }
  log('preferences.saved', { action: REVOKE_FEED_ACTION, feedTokenVersion: result.subscriber.feedTokenVersion });
  return formPage(deps, {
    status: 200,
    token: input.token,
    subscriber: result.subscriber,
    values: formValuesOf(result.subscriber),
    notice: 'Your old feed URLs no longer work. Put the new one below into your feed reader.',
  });
}

/** "Revoke my links" (./revoke-links.ts): this link dies too, so the answer is a page without the form, saying how to get a new one. */
async function revokeAllLinks(deps: PreferencesDeps, log: Logger, uid: string): Promise<Response> {
  const result = await revokeLinks(deps.db, { uid, now: deps.now });
  if (!result.ok) {
    log('preferences.refused', { action: REVOKE_LINKS_ACTION, reason: result.kind });
    return result.kind === 'unknown-subscriber'
      ? preferencesUnavailablePage({ status: 'unknown' })
      : preferencesUnavailablePage({ status: result.status, httpStatus: 409 });
  }
  log('preferences.saved', { action: REVOKE_LINKS_ACTION, linkVersion: result.linkVersion });
  return linksRevokedPage();
}

/** A channel action (./channel-actions.ts): the page again, its channels section saying what happened. */
async function channelAction(
  deps: PreferencesDeps,
  log: Logger,
  input: { token: string; uid: string; current: Subscriber; action: ChannelAction; fields: URLSearchParams },
): Promise<Response> {
  const { token, ...rest } = input;
  const answer = await runChannelAction({ ...deps, log }, rest);
  if (answer.kind === 'failure')
    return answer.failure.kind === 'unknown-subscriber'
      ? preferencesUnavailablePage({ status: 'unknown' })
      : preferencesUnavailablePage({ status: answer.failure.status, httpStatus: 409 });
  const { subscriber } = answer;
  return formPage(deps, { status: answer.status, token, subscriber, values: formValuesOf(subscriber), channelState: answer.state });
}

async function formPage(
  deps: PreferencesDeps,
  input: {
    status: number;
    token: string;
    subscriber: Subscriber;
    values: PreferenceFormValues;
    errors?: PreferenceFieldErrors;
    notice?: string;
    preview?: PreviewPanelState;
    retryAfterSec?: number;
    channelState?: ChannelPageState;
  },
): Promise<Response> {
  // Measured on the stored subscriber (not on values a refused save sent back): the figure is about what they have now.
  const suggestion = await readExcludeSuggestion(deps.db, input.subscriber);
  return preferencesFormPage({
    status: input.status,
    token: input.token,
    maskedEmail: input.subscriber.email ? maskEmail(input.subscriber.email) : null,
    subscriberStatus: input.subscriber.status === 'paused' ? 'paused' : 'active',
    values: input.values,
    errors: input.errors,
    notice: input.notice,
    cadence: describeCadence(input.subscriber, deps.config.DIGEST_HOUR_UTC),
    preview: input.preview,
    retryAfterSec: input.retryAfterSec,
    unsubscribeLink: unsubscribeUrl({
      appUrl: deps.config.APP_URL,
      uid: input.subscriber.id,
      linkVersion: input.subscriber.linkVersion,
      secret: deps.config.LINK_SECRET,
      issuedAt: deps.now,
    }),
    digestHourUtc: deps.config.DIGEST_HOUR_UTC,
    aiEnabled: aiEnabled(deps.config),
    excludeSuggestion: suggestion ? { term: suggestion.term, removed: suggestion.removed, of: suggestion.of } : null,
    archiveLinks: archiveLinksFor({
      appUrl: deps.config.APP_URL,
      secret: deps.config.LINK_SECRET,
      now: deps.now,
      subscriber: input.subscriber,
    }),
    channels: {
      channels: input.subscriber.channels ?? [],
      digestOffered: isDigestMode(input.subscriber.mode),
      telegramOffered: telegramEnabled(deps.config),
      state: input.channelState ?? {},
      now: deps.now,
    },
  });
}

/** The body, capped at 16 KB as it arrives (Content-Length may be absent or wrong), parsed as a form. */
async function readPreferencesForm(request: Request): Promise<{ ok: true; fields: URLSearchParams } | { ok: false; response: Response }> {
  const form = await readForm(request, MAX_PREFERENCES_BODY_BYTES);
  if (form.ok) return form;
  if (form.reason === 'unsupported-type')
    return { ok: false, response: await preferencesBadRequestPage({ status: 415, message: 'Scout expected the preferences form.' }) };
  return {
    ok: false,
    response: await preferencesBadRequestPage({ status: 413, message: 'The form sent more than Scout accepts (16 KB).' }),
  };
}
