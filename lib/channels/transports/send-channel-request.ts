import type { ChannelKind } from '../channel';
import type { ChannelSendOutcome } from '../channel-outcome';
import { parseDestination } from '../destination';
import { DEFAULT_CHANNEL_TIMEOUT_MS, postToChannel, type ChannelAnswer } from './channel-http';
import { classifyDiscordAnswer, discordExecuteUrl } from './discord';
import { classifySlackAnswer, SLACK_CONTENT_TYPE } from './slack';
import { classifyTelegramAnswer, telegramSendMessageUrl } from './telegram';
import { classifyWebhookAnswer, webhookHeaders } from './webhook';

/**
 * Sends one channel message's request and says what the platform's answer means for the ledger
 * (ChannelSendOutcome). The caller (the channels' outbox) has already leased the message, taken
 * the destination limiter's turn and re-checked the subscriber; this only talks HTTP.
 */
export type ChannelHttpDeps = {
  /** CHANNEL_ALLOW_LOOPBACK: the local stand-ins on 127.0.0.1; never in production. */
  allowLoopback: boolean;
  /** Scout's bot (TELEGRAM_API_BASE_URL, TELEGRAM_BOT_TOKEN); null when Telegram is not configured. */
  telegram: { apiBaseUrl: string; botToken: string } | null;
  /** The whole exchange's deadline, connecting to the last byte read (default 10 s). */
  timeoutMs?: number;
  /** The webhook signature's time. */
  now?: () => Date;
};

export type ChannelTarget = {
  kind: ChannelKind;
  /** slack, discord, webhook: the stored URL; telegram: the chat id. */
  destination: string;
  /** webhook: the signing secret; null for the others. */
  secret: string | null;
};

export type ChannelSendRequest = {
  /** The JSON body as frozen in the message row: every attempt sends the same bytes. */
  body: string;
  /** The message's id: the webhook's `webhook-id`, the same on every attempt. */
  messageId: string;
  /** Which attempt this is, from 1 (kept with the outcome by the caller; no platform reads it). */
  attempt: number;
};

type Prepared = {
  url: URL;
  headers: Record<string, string>;
  platform: string;
  classify: (answer: ChannelAnswer) => ChannelSendOutcome;
};

const JSON_HEADERS = { 'content-type': SLACK_CONTENT_TYPE, 'user-agent': 'Scout-Channels/1' };

/** Where and how to post, or why not: a stored destination is checked again, since rules may have tightened since it was added. */
function prepare(target: ChannelTarget, request: ChannelSendRequest, deps: ChannelHttpDeps): Prepared | ChannelSendOutcome {
  const { kind } = target;
  if (kind === 'telegram') {
    if (!deps.telegram) return { status: 'refused', retryAfterMs: null, error: 'telegram: Scout has no bot configured' };
    if (!/^-?\d{1,20}$/.test(target.destination)) return { status: 'rejected', error: 'telegram: the channel has no chat bound' };
    const { apiBaseUrl, botToken } = deps.telegram;
    return {
      url: telegramSendMessageUrl(apiBaseUrl, botToken),
      headers: JSON_HEADERS,
      platform: 'telegram',
      classify: (answer) => classifyTelegramAnswer(answer, botToken),
    };
  }
  const parsed = parseDestination(kind, target.destination, { allowLoopback: deps.allowLoopback });
  if (!parsed.ok) return { status: 'rejected', error: `${kind}: destination refused by the address rules` };
  if (kind === 'slack') return { url: new URL(parsed.url), headers: JSON_HEADERS, platform: kind, classify: classifySlackAnswer };
  if (kind === 'discord')
    return { url: discordExecuteUrl(parsed.url), headers: JSON_HEADERS, platform: kind, classify: classifyDiscordAnswer };
  if (!target.secret) return { status: 'rejected', error: 'webhook: the channel has no signing secret' };
  const headers = webhookHeaders(target.secret, request.messageId, request.body, (deps.now ?? (() => new Date()))());
  return { url: new URL(parsed.url), headers, platform: kind, classify: classifyWebhookAnswer };
}

export async function sendChannelRequest(
  target: ChannelTarget,
  request: ChannelSendRequest,
  deps: ChannelHttpDeps,
): Promise<ChannelSendOutcome> {
  const prepared = prepare(target, request, deps);
  if ('status' in prepared) return prepared;
  const exchange = await postToChannel({
    url: prepared.url,
    headers: prepared.headers,
    body: request.body,
    platform: prepared.platform,
    allowLoopback: deps.allowLoopback,
    timeoutMs: deps.timeoutMs ?? DEFAULT_CHANNEL_TIMEOUT_MS,
  });
  return 'outcome' in exchange ? exchange.outcome : prepared.classify(exchange.answer);
}
