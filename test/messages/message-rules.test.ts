import { describe, expect, it } from 'vitest';
import type { ChannelKind } from '../../lib/channels/channel';
import type { ChannelSendOutcome } from '../../lib/channels/channel-outcome';
import type { MessageKind } from '../../lib/messages/message-row';
import {
  MESSAGE_MAX_ATTEMPTS,
  messageRetryDelayMs,
  reasonNotToSend,
  stepAfterAbandoned,
  stepAfterAnswer,
} from '../../lib/messages/message-rules';

const NOW = new Date('2026-12-06T10:00:00Z');
const sent: ChannelSendOutcome = { status: 'sent', detail: '42' };
const refused: ChannelSendOutcome = { status: 'refused', retryAfterMs: 5_000, error: 'telegram 429' };
const refusedNoWait: ChannelSendOutcome = { status: 'refused', retryAfterMs: null, error: 'connection refused' };
const unknown: ChannelSendOutcome = { status: 'unknown', error: 'slack 500' };
const gone: ChannelSendOutcome = { status: 'gone', error: 'slack 404 no_service' };
const rejected: ChannelSendOutcome = { status: 'rejected', error: 'discord 400' };

type Row = [string, MessageKind, ChannelKind, number, ChannelSendOutcome, string, string | null];

describe('what a platform answer comes to (the email rules, with a webhook repeat invisible)', () => {
  const rows: Row[] = [
    ['sent is sent', 'alert', 'slack', 1, sent, 'sent', null],
    ['a 429 is tried again after its retry-after, even an alert', 'alert', 'telegram', 1, refused, 'pending', 'telegram 429'],
    ['refused with no wait: backoff', 'alert', 'discord', 2, refusedNoWait, 'pending', 'connection refused'],
    ['refused on the last try: dead', 'digest', 'slack', MESSAGE_MAX_ATTEMPTS.slack, refused, 'dead', 'telegram 429'],
    ['an unknown outcome fails a chat alert (at most once)', 'alert', 'slack', 1, unknown, 'failed', 'unknown_outcome: slack 500'],
    ['an unknown outcome fails a Telegram alert', 'alert', 'telegram', 1, unknown, 'failed', 'unknown_outcome: slack 500'],
    ['an unknown outcome retries a webhook alert (its id deduplicates)', 'alert', 'webhook', 1, unknown, 'pending', 'slack 500'],
    ['an unknown outcome retries a digest (at least once)', 'digest', 'discord', 1, unknown, 'pending', 'slack 500'],
    ['a webhook has three tries', 'digest', 'webhook', 3, unknown, 'dead', 'slack 500'],
    ['gone fails the message and disables the channel', 'digest', 'slack', 1, gone, 'failed', 'gone: slack 404 no_service'],
    ['rejected for good: dead at once', 'alert', 'discord', 1, rejected, 'dead', 'discord 400'],
  ];
  it.each(rows)('%s', (_name, kind, channel, attempts, outcome, status, lastError) => {
    const step = stepAfterAnswer({ kind, channel, attempts }, outcome, NOW, () => 0.5);
    expect(step.status).toBe(status);
    expect(step.lastError).toBe(lastError);
    expect(step.notBefore !== null).toBe(status === 'pending');
    expect(step.disableChannel !== undefined).toBe(outcome.status === 'gone');
  });

  it('waits what the platform said, else the backoff', () => {
    expect(stepAfterAnswer({ kind: 'alert', channel: 'telegram', attempts: 1 }, refused, NOW).notBefore).toEqual(
      new Date(NOW.getTime() + 5_000),
    );
    expect(stepAfterAnswer({ kind: 'alert', channel: 'telegram', attempts: 2 }, refusedNoWait, NOW, () => 0.5).notBefore).toEqual(
      new Date(NOW.getTime() + 4_000),
    );
  });

  it('gives a webhook three tries, as its receivers are told (docs/channels.md), and a chat platform five', () => {
    expect(MESSAGE_MAX_ATTEMPTS).toEqual({ slack: 5, discord: 5, telegram: 5, webhook: 3 });
  });

  it('backs off 1 s, 4 s, 16 s … to at most five minutes, with jitter of a quarter either way', () => {
    expect([1, 2, 3, 9].map((a) => messageRetryDelayMs(a, () => 0.5))).toEqual([1_000, 4_000, 16_000, 300_000]);
    expect(messageRetryDelayMs(1, () => 0)).toBe(750);
    expect(messageRetryDelayMs(1, () => 1)).toBe(1_250);
  });
});

describe('a message whose sender stopped mid-send', () => {
  it.each([
    ['a chat alert fails: the platform may have posted it', 'alert', 'discord', 1, 'failed'],
    ['a webhook alert is tried again under its id', 'alert', 'webhook', 1, 'pending'],
    ['a digest is tried again', 'digest', 'telegram', 1, 'pending'],
    ['out of tries: dead', 'digest', 'telegram', MESSAGE_MAX_ATTEMPTS.telegram, 'dead'],
  ] as const)('%s', (_name, kind, channel, attempts, status) => {
    expect(stepAfterAbandoned({ kind, channel, attempts }, NOW).status).toBe(status);
  });
});

describe('opt-outs win, checked before each send', () => {
  const channel = { id: 'c1', status: 'active', instant: true, digest: false };
  it.each([
    ['an active subscriber and channel that wants it', { status: 'active', channels: [channel] }, 'alert', null],
    ['the subscriber is gone', null, 'alert', 'subscriber_gone'],
    ['the subscriber paused', { status: 'paused', channels: [channel] }, 'alert', 'subscriber_paused'],
    ['the subscriber unsubscribed', { status: 'unsubscribed', channels: [] }, 'alert', 'subscriber_unsubscribed'],
    ['the channel was removed', { status: 'active', channels: [] }, 'alert', 'channel_removed'],
    ['the channel is paused', { status: 'active', channels: [{ ...channel, status: 'paused' }] }, 'alert', 'channel_paused'],
    ['the channel was disabled', { status: 'active', channels: [{ ...channel, status: 'disabled' }] }, 'alert', 'channel_disabled'],
    ['the channel no longer takes digests', { status: 'active', channels: [channel] }, 'digest', 'channel_no_digest'],
  ] as const)('%s', (_name, subscriber, kind, reason) => {
    expect(reasonNotToSend(subscriber ? { ...subscriber, channels: [...subscriber.channels] } : null, { channelId: 'c1', kind })).toBe(
      reason,
    );
  });
});
