import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import { MAX_VERIFY_TRIES, newChannelId, VERIFY_WINDOW_MS, type Channel, type ChannelKind } from '../channels/channel';
import { changeChannels, findChannel, isFailure, refuse, replaced, type ChannelWriteResult } from './channel-writes';

/**
 * How a channel proves it reaches the subscriber before it gets anything (docs/channels.md):
 * Slack and Discord by a 6-digit code the test message carries, typed back on the page; a webhook
 * by answering the signed test event with 2xx. The code is stored only as its sha256, and a wrong
 * one counts: after MAX_VERIFY_TRIES, or VERIFY_WINDOW_MS after it was sent, only a new code works.
 */

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A code to type back, and what is stored of it (hashed with the channel's id, so a code fits one channel). */
export function newVerifyCode(channelId: string): { code: string; hash: string } {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  return { code, hash: codeHash(channelId, code) };
}

const codeHash = (channelId: string, code: string) => sha256(`${channelId}:${code}`);

/** A webhook's signing secret, Standard Webhooks style: `whsec_` and 32 random bytes in base64. */
export { newWebhookSecret } from '../channels/transports/webhook';
import { newWebhookSecret } from '../channels/transports/webhook';

/** A new channel, verifying, on instant alerts only (the default cadence). */
export function newChannel(input: {
  /** Given when something must be made of the id first (a code is hashed with it). */
  id?: string;
  kind: ChannelKind;
  destination: string;
  label: string;
  secret: string | null;
  verifyHash: string | null;
  now: Date;
}): Channel {
  return {
    id: input.id ?? newChannelId(),
    kind: input.kind,
    status: 'verifying',
    instant: true,
    digest: false,
    destination: input.destination,
    label: input.label,
    secret: input.secret,
    verifyHash: input.verifyHash,
    verifyExpiresAt: input.verifyHash ? new Date(input.now.getTime() + VERIFY_WINDOW_MS) : null,
    verifyTries: 0,
    createdAt: input.now,
    verifiedAt: null,
    disabledAt: null,
    disabledReason: null,
  };
}

/** Verified: active from now, nothing pending kept. */
export const verified = (channel: Channel, now: Date): Channel => ({
  ...channel,
  status: 'active',
  verifyHash: null,
  verifyExpiresAt: null,
  verifyTries: 0,
  verifiedAt: now,
});

export type CodeCheck =
  | { outcome: 'verified' }
  /** Verified before (another tab, a double click): nothing changed. */
  | { outcome: 'already' }
  | { outcome: 'wrong'; triesLeft: number }
  | { outcome: 'locked' }
  | { outcome: 'expired' };

/**
 * The code typed back. A right one makes the channel active; a wrong one is counted in the same
 * guarded write, so concurrent guesses each count. Codes are compared as hashes, in constant time.
 */
export async function checkVerifyCode(
  db: Firestore,
  input: { uid: string; now: Date; channelId: string; code: string },
): Promise<ChannelWriteResult<CodeCheck>> {
  const typed = input.code.replace(/\s+/g, '');
  return changeChannels<CodeCheck>(db, input, (_subscriber, channels) => {
    const channel = findChannel(channels, input.channelId, null);
    if (isFailure(channel)) return { fail: channel };
    if (channel.status !== 'verifying')
      return channel.verifiedAt ? { keep: { outcome: 'already' } } : refuse('This channel is not waiting for a code.');
    if (channel.kind !== 'slack' && channel.kind !== 'discord') return refuse('This channel is not verified with a code.');
    if (!channel.verifyHash || channel.verifyTries >= MAX_VERIFY_TRIES) return { keep: { outcome: 'locked' } };
    if (!channel.verifyExpiresAt || channel.verifyExpiresAt.getTime() <= input.now.getTime()) return { keep: { outcome: 'expired' } };
    if (/^\d{6}$/.test(typed) && sameHash(codeHash(channel.id, typed), channel.verifyHash))
      return { write: replaced(channels, verified(channel, input.now)), value: { outcome: 'verified' } };
    const tries = channel.verifyTries + 1;
    const next = { ...channel, verifyTries: tries };
    return {
      write: replaced(channels, next),
      value: tries >= MAX_VERIFY_TRIES ? { outcome: 'locked' } : { outcome: 'wrong', triesLeft: MAX_VERIFY_TRIES - tries },
    };
  });
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A channel waiting on a new code or start link: its hash, a fresh window, the tries counted from zero. */
export const withFreshVerification = (channel: Channel, hash: string, now: Date): Channel => ({
  ...channel,
  verifyHash: hash,
  verifyExpiresAt: new Date(now.getTime() + VERIFY_WINDOW_MS),
  verifyTries: 0,
});

/** "Send a new code": a fresh code and window, the tries counted from zero; the old code stops working. */
export async function replaceVerifyCode(
  db: Firestore,
  input: { uid: string; now: Date; channelId: string; seen: string | null; hash: string },
): Promise<ChannelWriteResult<Channel>> {
  return changeChannels<Channel>(db, input, (_subscriber, channels) => {
    const channel = findChannel(channels, input.channelId, input.seen);
    if (isFailure(channel)) return { fail: channel };
    if (channel.status !== 'verifying') return refuse('This channel is already verified.');
    const next = withFreshVerification(channel, input.hash, input.now);
    return { write: replaced(channels, next), value: next };
  });
}

/**
 * A webhook answered the test event with 2xx: active, if it still points where the event went and
 * signs with the secret it was signed with (a rotation or a new URL in between needs a new test).
 */
export async function markWebhookVerified(
  db: Firestore,
  input: { uid: string; now: Date; tested: Channel },
): Promise<ChannelWriteResult<Channel>> {
  return changeChannels<Channel>(db, input, (_subscriber, channels) => {
    const channel = findChannel(channels, input.tested.id, null);
    if (isFailure(channel)) return { fail: channel };
    if (channel.status !== 'verifying') return { keep: channel };
    if (channel.destination !== input.tested.destination || channel.secret !== input.tested.secret)
      return { fail: { ok: false, kind: 'changed' } };
    const next = verified(channel, input.now);
    return { write: replaced(channels, next), value: next };
  });
}

/**
 * "Rotate secret": a new signing secret, shown once on the page that answers. Messages already in
 * the ledger were signed when sent, so the receiver must take the new secret before the next one.
 */
export async function rotateWebhookSecret(
  db: Firestore,
  input: { uid: string; now: Date; channelId: string; seen: string | null },
): Promise<ChannelWriteResult<Channel>> {
  const secret = newWebhookSecret();
  return changeChannels<Channel>(db, input, (_subscriber, channels) => {
    const channel = findChannel(channels, input.channelId, input.seen);
    if (isFailure(channel)) return { fail: channel };
    if (channel.kind !== 'webhook') return refuse('Only a webhook has a signing secret.');
    const next = { ...channel, secret };
    return { write: replaced(channels, next), value: next };
  });
}
