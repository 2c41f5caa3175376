import type { ChannelKind } from '../channels/channel';
import type { ChannelSendOutcome } from '../channels/channel-outcome';
import type { MessageKind, MessageRow, MessageStatus } from './message-row';

/**
 * What a message's send comes to, decided from the row and the platform's answer (pure; the
 * dispatcher reads, leases, sends and writes what this says). The rules are email's (docs/design.md
 * §2.3–2.4), with one difference a webhook makes: its receiver drops a repeated `webhook-id`, so
 * trying a webhook again cannot show anything twice, and even an alert may be retried.
 */

/** Tries per message before it is `dead`: a webhook's are the documented three; a chat platform's a few more, as 429s are routine there. */
export const MESSAGE_MAX_ATTEMPTS: Record<ChannelKind, number> = { slack: 5, discord: 5, telegram: 5, webhook: 3 };

/** Backoff when the platform named no wait: 1 s, 4 s, 16 s … capped at 5 minutes, with jitter so retries of many destinations spread. */
export function messageRetryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(1_000 * 4 ** Math.max(0, attempt - 1), 5 * 60_000);
  return Math.round(base * (0.75 + random() * 0.5));
}

/** A repeat of this message could show the subscriber nothing twice: a webhook (receivers deduplicate by id). */
export const repeatIsInvisible = (channel: ChannelKind) => channel === 'webhook';

/** An alert is at-most-once, as for email, unless a repeat is invisible; a digest is at-least-once. */
export const mustNotRepeat = (row: Pick<MessageRow, 'kind' | 'channel'>) => row.kind === 'alert' && !repeatIsInvisible(row.channel);

export type MessageStep = {
  status: MessageStatus;
  lastError: string | null;
  /** pending again: not before this. */
  notBefore: Date | null;
  /** sent: what the platform gave back. */
  detail?: string | null;
  /** gone: the channel is disabled, with this reason. */
  disableChannel?: string;
};

/** After the platform answered the row's `attempts`-th try. */
export function stepAfterAnswer(
  row: Pick<MessageRow, 'kind' | 'channel' | 'attempts'>,
  outcome: ChannelSendOutcome,
  now: Date,
  random?: () => number,
): MessageStep {
  const retry = (error: string, waitMs: number | null): MessageStep =>
    row.attempts >= MESSAGE_MAX_ATTEMPTS[row.channel]
      ? { status: 'dead', lastError: error, notBefore: null }
      : { status: 'pending', lastError: error, notBefore: new Date(now.getTime() + (waitMs ?? messageRetryDelayMs(row.attempts, random))) };
  switch (outcome.status) {
    case 'sent':
      return { status: 'sent', lastError: null, notBefore: null, detail: outcome.detail };
    case 'refused':
      return retry(outcome.error, outcome.retryAfterMs);
    case 'unknown':
      // The platform may have posted it: an alert that must not repeat is given up, visibly.
      return mustNotRepeat(row)
        ? { status: 'failed', lastError: `unknown_outcome: ${outcome.error}`, notBefore: null }
        : retry(outcome.error, null);
    case 'gone':
      return { status: 'failed', lastError: `gone: ${outcome.error}`, notBefore: null, disableChannel: outcome.error };
    case 'rejected':
      return { status: 'dead', lastError: outcome.error, notBefore: null };
  }
}

/**
 * A row found `sending` with its lease expired: its sender died after leasing, maybe after the
 * platform took the message. An alert that must not repeat fails (`unknown_outcome`); anything
 * else is tried again, while it has tries left.
 */
export function stepAfterAbandoned(row: Pick<MessageRow, 'kind' | 'channel' | 'attempts'>, now: Date): MessageStep {
  if (mustNotRepeat(row)) return { status: 'failed', lastError: 'unknown_outcome: sender stopped mid-send', notBefore: null };
  if (row.attempts >= MESSAGE_MAX_ATTEMPTS[row.channel]) return { status: 'dead', lastError: 'sender stopped mid-send', notBefore: null };
  return { status: 'pending', lastError: 'sender stopped mid-send', notBefore: now };
}

/** Why a leased row is not sent at all (opt-outs win, re-checked before each send), or null to send it. */
export function reasonNotToSend(
  subscriber: { status: string; channels: { id: string; status: string; instant: boolean; digest: boolean }[] } | null,
  row: Pick<MessageRow, 'channelId' | 'kind'>,
): string | null {
  if (!subscriber) return 'subscriber_gone';
  if (subscriber.status !== 'active') return `subscriber_${subscriber.status}`;
  const channel = subscriber.channels.find((c) => c.id === row.channelId);
  if (!channel) return 'channel_removed';
  if (channel.status !== 'active') return `channel_${channel.status}`;
  const wanted: Record<MessageKind, boolean> = { alert: channel.instant, digest: channel.digest };
  return wanted[row.kind] ? null : `channel_no_${row.kind}`;
}
