import { CHANNEL_KIND_NAMES, CHANNEL_KINDS, MAX_CHANNELS, newChannelId, type Channel, type ChannelKind } from '../channels/channel';
import { telegramEnabled } from '../runtime/config';
import { countClientRequest, type ClientLimit } from '../http/client-limit';
import type { Subscriber } from '../subscribers/subscriber';
import { channelLinksOf, describeTestOutcome, type SendChannelTest } from './channel-test-message';
import { parseDestination } from '../channels/destination';
import { addChannel, findChannel, isFailure, type ChannelWriteResult } from './channel-writes';
import {
  markWebhookVerified,
  newChannel,
  newVerifyCode,
  newWebhookSecret,
  replaceVerifyCode,
  rotateWebhookSecret,
} from './channel-verification';
import { createStartLink, newStartToken, replaceStartLink, startLinkUrl } from './channel-links';
import { channelStatusAction } from './channel-status-actions';
import {
  answerWrite,
  errorNotice as problem,
  failedAnswer,
  okNotice as ok,
  pageAnswer as page,
  type ChannelAction,
  type ChannelActionDeps,
  type ChannelAnswer,
} from './channel-answer';

/**
 * The preferences page's channel actions (`action=channel-…`, docs/channels.md "Adding a channel"):
 * adding a channel and verifying it. Pause, resume, cadence and removal are in
 * channel-status-actions.ts. Each answers the page to show again, with what happened said in the
 * channels section, or the failure the preferences page answers for any action.
 */

type Input = { uid: string; current: Subscriber; action: ChannelAction; fields: URLSearchParams };

export async function runChannelAction(deps: ChannelActionDeps, input: Input): Promise<ChannelAnswer> {
  const answer = await dispatch(deps, input);
  deps.log('preferences.channel', { action: input.action, status: answer.kind === 'page' ? answer.status : answer.failure.kind });
  return answer;
}

/**
 * Actions that may send a message (an add, a new code, a test event), per subscriber an hour: a
 * page can make Scout post to a URL its subscriber chose, so that is bounded too. Generous for a
 * person setting up five channels; a loop gets 429.
 */
export const CHANNEL_SENDS: ClientLimit = {
  name: 'channel-sends',
  windowLetter: 'h',
  kind: 'channel-sends',
  hashedAs: 'channel-sends',
  windowMs: 3_600_000,
  perWindow: 20,
};
const SENDING: readonly ChannelAction[] = ['channel-add', 'channel-new-code', 'channel-test'];

async function dispatch(deps: ChannelActionDeps, input: Input): Promise<ChannelAnswer> {
  if (SENDING.includes(input.action)) {
    const count = await countClientRequest(deps.db, CHANNEL_SENDS, {
      clientAddress: input.uid,
      secret: deps.config.LINK_SECRET,
      now: deps.now,
    });
    if (!count.allowed) {
      const minutes = Math.ceil(count.retryAfterSec / 60);
      return page(429, input.current, {
        notice: problem(`That is a lot of channel messages for one hour: try again in ${minutes} minutes.`),
      });
    }
  }
  const channelId = input.fields.get('channel') ?? '';
  const seen = input.fields.get('seen') ?? '';
  switch (input.action) {
    case 'channel-add':
      return add(deps, input);
    case 'channel-verify':
      return channelStatusAction(deps, { ...input, channelId, seen: null });
    case 'channel-new-code':
      return newCode(deps, { ...input, channelId, seen });
    case 'channel-new-link':
      return newLink(deps, { uid: input.uid, channelId, seen });
    case 'channel-test':
      return sendTestEvent(deps, { ...input, channelId, seen });
    case 'channel-rotate-secret':
      return rotate(deps, { uid: input.uid, channelId, seen });
    default:
      return channelStatusAction(deps, { ...input, channelId, seen });
  }
}

function sender(deps: ChannelActionDeps): SendChannelTest {
  if (!deps.sendChannelTest) throw new Error('sendChannelTest is not wired: channel messages cannot be sent');
  return deps.sendChannelTest;
}

const linksFor = (deps: ChannelActionDeps, subscriber: Subscriber) =>
  channelLinksOf(subscriber, { appUrl: deps.config.APP_URL, secret: deps.config.LINK_SECRET, now: deps.now });

/** "Add": Slack and Discord get their code now (and are not added if the platform says the URL is wrong), a webhook its secret, Telegram its start link. */
async function add(deps: ChannelActionDeps, input: Input): Promise<ChannelAnswer> {
  const kindField = input.fields.get('kind') ?? '';
  const url = input.fields.get('url') ?? '';
  const addForm = { kind: kindField, url };
  const refuseAdd = (error: string) => page(400, input.current, { addForm: { ...addForm, error } });
  if (!(CHANNEL_KINDS as readonly string[]).includes(kindField))
    return refuseAdd('Choose where to send: Slack, Discord, Telegram or a webhook.');
  const kind = kindField as ChannelKind;
  if ((input.current.channels ?? []).length >= MAX_CHANNELS)
    return refuseAdd(`You have ${MAX_CHANNELS} channels, the most Scout keeps: remove one to add another.`);
  if (kind === 'telegram') return addTelegram(deps, input, refuseAdd);
  const checked = parseDestination(kind, url, { allowLoopback: deps.config.CHANNEL_ALLOW_LOOPBACK });
  if (!checked.ok) return refuseAdd(checked.error);
  if ((input.current.channels ?? []).some((c) => c.kind === kind && c.destination === checked.url))
    return refuseAdd('This URL is already one of your channels.');
  const base = { kind, destination: checked.url, label: checked.label, now: deps.now };
  if (kind === 'webhook') {
    const channel = newChannel({ ...base, secret: newWebhookSecret(), verifyHash: null });
    const result = await addChannel(deps.db, { uid: input.uid, now: deps.now, channel });
    return answerWrite(deps.db, input.uid, result, (added) => ({
      notice: ok('Webhook added. Copy its signing secret now: Scout shows it only this once. Then press “Send test event”.'),
      reveal: { channelId: added.id, secret: added.secret ?? '' },
    }));
  }
  const id = newChannelId();
  const { code, hash } = newVerifyCode(id);
  const channel = newChannel({ ...base, id, secret: null, verifyHash: hash });
  const platform = CHANNEL_KIND_NAMES[kind];
  const outcome = await sender(deps)(
    { kind, destination: channel.destination, secret: null },
    { type: 'test', code, links: linksFor(deps, input.current) },
  );
  if (outcome.status === 'gone' || outcome.status === 'rejected') return refuseAdd(`Not added: ${describeTestOutcome(outcome, platform)}`);
  const result = await addChannel(deps.db, { uid: input.uid, now: deps.now, channel });
  const said =
    outcome.status === 'sent'
      ? `Scout sent a 6-digit code to ${platform}. Type it below to start getting postings there.`
      : `Added, but ${describeTestOutcome(outcome, platform)} If no code arrives, press “Send a new code”.`;
  return answerWrite(deps.db, input.uid, result, () => ({ notice: ok(said) }));
}

async function addTelegram(deps: ChannelActionDeps, input: Input, refuseAdd: (error: string) => ChannelAnswer): Promise<ChannelAnswer> {
  const bot = deps.config.TELEGRAM_BOT_USERNAME;
  if (!telegramEnabled(deps.config) || !bot) return refuseAdd('Telegram is not offered on this Scout.');
  const { token, hash } = newStartToken();
  const channel = newChannel({ kind: 'telegram', destination: '', label: 'Telegram', secret: null, verifyHash: hash, now: deps.now });
  const result = await addChannel(deps.db, {
    uid: input.uid,
    now: deps.now,
    channel,
    alongside: (batch) => createStartLink(batch, deps.db, { hash, uid: input.uid, channelId: channel.id, now: deps.now }),
  });
  return answerWrite(deps.db, input.uid, result, () => ({
    notice: ok('Open the link below on a device with Telegram and press Start. The link works once, for an hour.'),
    reveal: { channelId: channel.id, startLink: startLinkUrl(bot, token) },
  }));
}

/** "Send a new code": stored first, then sent, so the code that arrives is always the one that works. */
async function newCode(deps: ChannelActionDeps, input: Input & { channelId: string; seen: string }): Promise<ChannelAnswer> {
  const { code, hash } = newVerifyCode(input.channelId);
  const result = await replaceVerifyCode(deps.db, { uid: input.uid, now: deps.now, channelId: input.channelId, seen: input.seen, hash });
  if (!result.ok) return failedAnswer(deps.db, input.uid, result);
  const channel = result.value;
  if (channel.kind !== 'slack' && channel.kind !== 'discord')
    return failedAnswer(deps.db, input.uid, { ok: false, kind: 'refused', message: 'This channel is not verified with a code.' });
  const platform = CHANNEL_KIND_NAMES[channel.kind];
  const outcome = await sender(deps)(
    { kind: channel.kind, destination: channel.destination, secret: null },
    { type: 'test', code, links: linksFor(deps, result.subscriber) },
  );
  if (outcome.status === 'sent')
    return page(200, result.subscriber, { notice: ok(`Scout sent a new code to ${platform}: the old one no longer works.`) });
  return page(502, result.subscriber, { notice: problem(describeTestOutcome(outcome, platform)) });
}

async function newLink(deps: ChannelActionDeps, input: { uid: string; channelId: string; seen: string }): Promise<ChannelAnswer> {
  const bot = deps.config.TELEGRAM_BOT_USERNAME;
  if (!telegramEnabled(deps.config) || !bot)
    return failedAnswer(deps.db, input.uid, { ok: false, kind: 'refused', message: 'Telegram is not offered on this Scout.' });
  const { token, hash } = newStartToken();
  const result = await replaceStartLink(deps.db, { ...input, now: deps.now, hash });
  return answerWrite(deps.db, input.uid, result, (channel) => ({
    notice: ok('A new link: the old one no longer works. Open it in Telegram and press Start.'),
    reveal: { channelId: channel.id, startLink: startLinkUrl(bot, token) },
  }));
}

/** "Send test event": the `scout.test` event, signed; a 2xx answer verifies a webhook still verifying. */
async function sendTestEvent(deps: ChannelActionDeps, input: Input & { channelId: string; seen: string }): Promise<ChannelAnswer> {
  const found = findChannel(input.current.channels ?? [], input.channelId, input.seen);
  if (isFailure(found)) return failedAnswer(deps.db, input.uid, found);
  if (found.kind !== 'webhook')
    return failedAnswer(deps.db, input.uid, { ok: false, kind: 'refused', message: 'Only a webhook takes a test event.' });
  const outcome = await sender(deps)(
    { kind: 'webhook', destination: found.destination, secret: found.secret },
    { type: 'test', code: null, links: linksFor(deps, input.current) },
  );
  if (outcome.status !== 'sent') {
    const stays = found.status === 'verifying' ? ' The webhook stays unverified until a test event gets a 2xx answer.' : '';
    return page(502, input.current, { notice: problem(`${describeTestOutcome(outcome, 'Your endpoint')}${stays}`) });
  }
  const result: ChannelWriteResult<Channel> = await markWebhookVerified(deps.db, { uid: input.uid, now: deps.now, tested: found });
  const text = found.status === 'verifying' ? 'Your endpoint answered 2xx: the webhook is verified.' : 'Your endpoint answered 2xx.';
  return answerWrite(deps.db, input.uid, result, () => ({ notice: ok(text) }));
}

async function rotate(deps: ChannelActionDeps, input: { uid: string; channelId: string; seen: string }): Promise<ChannelAnswer> {
  const result = await rotateWebhookSecret(deps.db, { ...input, now: deps.now });
  return answerWrite(deps.db, input.uid, result, (channel) => ({
    notice: ok('A new signing secret: copy it now, Scout shows it only this once. Messages are signed with it from now on.'),
    reveal: { channelId: channel.id, secret: channel.secret ?? '' },
  }));
}
