import { createHash } from 'node:crypto';
import type { Firestore, WriteBatch } from 'firebase-admin/firestore';
import { channelFields, MAX_CHANNELS, routesOf, type Channel } from '../channels/channel';
import { guardedSubscriberUpdate } from '../subscribers/subscriber-writes';
import { isDigestMode, subscribersCollection, type Subscriber, type SubscriberStatus } from '../subscribers/subscriber';
import { canEditPreferences } from './preferences';

/**
 * Every change a subscriber makes to their channels (docs/channels.md "Adding a channel"): one
 * update of users/{uid} guarded by the version it was decided on, writing the list and its
 * channelStates together (channelFields), through guardedSubscriberUpdate so the match index
 * entry, whose routes are the active channels, is rewritten in the same batch. Each decision is
 * taken on the list as stored, never the one a page showed: a concurrent change to another channel
 * is kept. A page's form names the channel it acts on and the state it saw of it (`seen`,
 * channelTag); when the channel changed since (another tab, the bot, a "gone" answer), the action
 * is refused rather than applied to a state the subscriber never saw.
 */

export type ChannelWriteFailure =
  | { ok: false; kind: 'unknown-subscriber' }
  | { ok: false; kind: 'not-editable'; status: SubscriberStatus }
  /** The channel is not in the list (removed, by the subscriber in another tab or by /stop). */
  | { ok: false; kind: 'no-channel' }
  /** The channel changed since the page was read: nothing was written. */
  | { ok: false; kind: 'changed' }
  /** Refused for a reason the page says as it is. */
  | { ok: false; kind: 'refused'; message: string };

export type ChannelWriteResult<T> = { ok: true; subscriber: Subscriber; value: T; written: boolean } | ChannelWriteFailure;

/** What a decision on the stored list makes of it. */
export type ChannelDecision<T> =
  { write: Channel[]; value: T; alongside?: (batch: WriteBatch) => void } | { keep: T } | { fail: ChannelWriteFailure };

export const refuse = (message: string): { fail: ChannelWriteFailure } => ({ fail: { ok: false, kind: 'refused', message } });

/**
 * What a page saw of a channel: the parts an action depends on (status, cadence, where it points,
 * the pending code or link, the secret). Wrong codes typed do not change it: the form that typed
 * them may try again.
 */
export function channelTag(channel: Channel): string {
  const seen = [channel.id, channel.status, channel.instant, channel.digest, channel.destination, channel.verifyHash, channel.secret];
  return createHash('sha256').update(JSON.stringify(seen)).digest('base64url').slice(0, 16);
}

/**
 * The read, decide, guarded write every channel action is: `decide` sees the subscriber and their
 * channels as stored now, and may be called again on a fresher version if someone wrote between.
 */
export async function changeChannels<T>(
  db: Firestore,
  input: { uid: string; now: Date },
  decide: (subscriber: Subscriber, channels: Channel[]) => ChannelDecision<T>,
): Promise<ChannelWriteResult<T>> {
  return guardedSubscriberUpdate<ChannelWriteResult<T>>(
    subscribersCollection(db).doc(input.uid),
    (snap) => {
      const current = snap.data();
      if (!snap.exists || !current || !snap.updateTime) return { done: { ok: false, kind: 'unknown-subscriber' } };
      if (!canEditPreferences(current.status)) return { done: { ok: false, kind: 'not-editable', status: current.status } };
      const decision = decide(current, current.channels ?? []);
      if ('fail' in decision) return { done: decision.fail };
      if ('keep' in decision) return { done: { ok: true, subscriber: current, value: decision.keep, written: false } };
      const channels = decision.write;
      const subscriber: Subscriber = { ...current, updatedAt: input.now, channels, routes: routesOf(channels) };
      return {
        update: { ...channelFields(channels), updatedAt: input.now },
        result: { ok: true, subscriber, value: decision.value, written: true },
        alongside: decision.alongside,
      };
    },
    { action: 'changing their channels' },
  );
}

/** The channel the form names, as stored, if the page saw it as it is now. */
export function findChannel(channels: readonly Channel[], id: string, seen: string | null): Channel | ChannelWriteFailure {
  const channel = channels.find((c) => c.id === id);
  if (!channel) return { ok: false, kind: 'no-channel' };
  if (seen !== null && channelTag(channel) !== seen) return { ok: false, kind: 'changed' };
  return channel;
}

export const isFailure = (value: Channel | ChannelWriteFailure): value is ChannelWriteFailure => 'ok' in value;

/** The list with one channel replaced. */
export const replaced = (channels: readonly Channel[], next: Channel) => channels.map((c) => (c.id === next.id ? next : c));

/** Adds a new channel (verifying) to the end of the list, if there is room for it. */
export async function addChannel(
  db: Firestore,
  input: { uid: string; now: Date; channel: Channel; alongside?: (batch: WriteBatch) => void },
): Promise<ChannelWriteResult<Channel>> {
  return changeChannels<Channel>(db, input, (_subscriber, channels) => {
    if (channels.length >= MAX_CHANNELS)
      return refuse(`You have ${MAX_CHANNELS} channels, the most Scout keeps: remove one to add another.`);
    return { write: [...channels, input.channel], value: input.channel, alongside: input.alongside };
  });
}

/**
 * Pause (active → paused: it gets nothing until resumed) or resume (paused → active). A channel
 * still verifying or disabled has neither: it is verified, or removed and added again.
 */
export async function setChannelPaused(
  db: Firestore,
  input: { uid: string; now: Date; channelId: string; seen: string | null; paused: boolean },
): Promise<ChannelWriteResult<Channel>> {
  return changeChannels<Channel>(db, input, (_subscriber, channels) => {
    const channel = findChannel(channels, input.channelId, input.seen);
    if (isFailure(channel)) return { fail: channel };
    const [from, to] = input.paused ? (['active', 'paused'] as const) : (['paused', 'active'] as const);
    if (channel.status === to) return { keep: channel };
    if (channel.status !== from)
      return refuse(
        channel.status === 'verifying' ? 'This channel is not verified yet.' : 'This channel is disabled: remove it and add it again.',
      );
    const next = { ...channel, status: to };
    return { write: replaced(channels, next), value: next };
  });
}

/** Removes the channel; `alongside` deletes what else pointed at it (a Telegram chat's link). */
export async function removeChannel(
  db: Firestore,
  input: { uid: string; now: Date; channelId: string; seen: string | null; alongside?: (channel: Channel, batch: WriteBatch) => void },
): Promise<ChannelWriteResult<Channel>> {
  return changeChannels<Channel>(db, input, (_subscriber, channels) => {
    const channel = findChannel(channels, input.channelId, input.seen);
    if (isFailure(channel)) return { fail: channel };
    const alongside = input.alongside;
    return {
      write: channels.filter((c) => c.id !== channel.id),
      value: channel,
      alongside: alongside ? (batch) => alongside(channel, batch) : undefined,
    };
  });
}

/**
 * Instant alerts and/or the digest. The digest is there only for a daily or weekly subscriber (an
 * instant one has no digest to copy), and a channel with neither would get nothing: pausing says so.
 */
export async function setChannelCadence(
  db: Firestore,
  input: { uid: string; now: Date; channelId: string; seen: string | null; instant: boolean; digest: boolean },
): Promise<ChannelWriteResult<Channel>> {
  return changeChannels<Channel>(db, input, (subscriber, channels) => {
    const channel = findChannel(channels, input.channelId, input.seen);
    if (isFailure(channel)) return { fail: channel };
    if (input.digest && !isDigestMode(subscriber.mode))
      return refuse('Scout sends digests only on a daily or weekly schedule: choose one above to get the digest here too.');
    if (!input.instant && !input.digest)
      return refuse('Choose instant alerts, the digest, or both. To get nothing for a while, pause the channel.');
    if (channel.instant === input.instant && channel.digest === input.digest) return { keep: channel };
    const next = { ...channel, instant: input.instant, digest: input.digest };
    return { write: replaced(channels, next), value: next };
  });
}
