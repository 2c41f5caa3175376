import type { Firestore } from 'firebase-admin/firestore';
import { CHANNEL_KINDS, CHANNEL_STATUSES, readChannels, type ChannelKind, type ChannelStatus } from '../channels/channel';
import type { ChannelRunStats } from '../ledger/runs';
import { messagesCollection } from '../messages/message-row';
import { maskEmail } from '../runtime/logger';
import { COLLECTIONS } from '../store/collections';
import { toDate } from '../store/timestamps';
import { subscribersCollection } from '../subscribers/subscriber';

/**
 * The channels as the ops page and `scout status` show them (docs/operations.md "Channels"): how
 * many there are by kind and state, the messages waiting, what the recent runs sent and failed per
 * kind (summed from the run records the caller already read), and the channels recently disabled
 * because their destination answered "gone". Every count is an aggregation; every list is bounded.
 */

/**
 * Per kind and state, the subscribers with at least one channel of that kind in that state: one
 * count() over users/ where `channelStates` (written beside the list by every writer,
 * lib/channels/channel.ts) holds `kind:state`. A subscriber with two channels of one kind and state
 * counts once: `channelStates` is a set.
 */
export type ChannelStateCounts = Record<ChannelKind, Record<ChannelStatus, number>>;

/** The channels' share of the recent runs: RunStats.channels summed over them. */
export type RecentChannelRuns = {
  /** Runs read, and of them those whose messages step ran (`stats.channels` not null). */
  runs: number;
  runsWithChannels: number;
  /** When the oldest of those runs started: the figures cover from then to now. */
  since: Date | null;
  sent: number;
  /** Failed (unknown outcome or gone) and dead (out of tries, or refused for good) messages. */
  failed: number;
  dead: number;
  skipped: number;
  retried: number;
  /** Channels disabled because their destination answered "gone". */
  disabled: number;
  /** Per kind: sent, and failed or dead (as the runs record it). */
  byChannel: Record<ChannelKind, { sent: number; failed: number }>;
};

/** A channel disabled as gone: kind, whose (masked), when, why, and what it is now. Never the destination. */
export type DisabledChannelView = {
  kind: ChannelKind;
  /** The subscriber's address masked (`a***@example.com`), as the logs show it. */
  subscriber: string;
  disabledAt: Date | null;
  reason: string;
  /** The channel's state now: `disabled`, or `removed` once the subscriber took it off the list. */
  now: ChannelStatus | 'removed';
};

export type ChannelsView = {
  subscribers: ChannelStateCounts;
  /** Messages in the channels' outbox not final yet: waiting for their turn, or being sent. */
  waiting: { pending: number; sending: number };
  recent: RecentChannelRuns;
  /** Among the newest DISABLED_LOOKBACK failed messages, those that answered gone, one per channel, newest first. */
  disabled: DisabledChannelView[];
};

/** Failed messages read to find the channels recently disabled (index: messages status, createdAt desc). */
export const DISABLED_LOOKBACK = 20;

const GONE = 'gone: ';

/** Everything but the runs' sums, which come from the run records the caller reads anyway. */
export type ChannelReads = Omit<ChannelsView, 'recent'>;

/** 16 + 2 aggregations, one query of at most DISABLED_LOOKBACK rows, and one getAll of their subscribers (none if no row was gone). */
export async function readChannelState(db: Firestore): Promise<ChannelReads> {
  const [subscribers, waiting, disabled] = await Promise.all([
    countChannelStates(db),
    countMessagesWaiting(db),
    readRecentlyDisabled(db, DISABLED_LOOKBACK),
  ]);
  return { subscribers, waiting, disabled };
}

export const channelsView = (reads: ChannelReads, runs: RunChannels[]): ChannelsView => ({
  ...reads,
  recent: sumRunChannels(runs),
});

/** One count() per kind and state: 16 aggregations, each one read per 1,000 index entries matched. */
export async function countChannelStates(db: Firestore): Promise<ChannelStateCounts> {
  const pairs = CHANNEL_KINDS.flatMap((kind) => CHANNEL_STATUSES.map((status) => [kind, status] as const));
  const counts = await Promise.all(
    pairs.map(
      async ([kind, status]) =>
        (await subscribersCollection(db).where('channelStates', 'array-contains', `${kind}:${status}`).count().get()).data().count,
    ),
  );
  const byKind = Object.fromEntries(
    CHANNEL_KINDS.map((kind) => [kind, Object.fromEntries(CHANNEL_STATUSES.map((status) => [status, 0]))]),
  ) as ChannelStateCounts;
  pairs.forEach(([kind, status], i) => (byKind[kind][status] = counts[i]));
  return byKind;
}

export async function countMessagesWaiting(db: Firestore): Promise<ChannelsView['waiting']> {
  const count = async (status: 'pending' | 'sending') =>
    (await messagesCollection(db).where('status', '==', status).count().get()).data().count;
  const [pending, sending] = await Promise.all([count('pending'), count('sending')]);
  return { pending, sending };
}

/**
 * The gone ones among the newest `lookback` failed messages (an instant alert of unknown outcome is
 * failed too, and takes a place), one per channel; each channel's disabledAt and reason read from
 * its subscriber (one getAll, the channels field alone), the row's own time and error when the
 * subscriber has removed it since.
 */
export async function readRecentlyDisabled(db: Firestore, lookback: number): Promise<DisabledChannelView[]> {
  const snap = await messagesCollection(db)
    .where('status', '==', 'failed')
    .orderBy('createdAt', 'desc')
    .select('uid', 'channelId', 'channel', 'lastError', 'createdAt', 'firstAttemptAt')
    .limit(lookback)
    .get();
  const seen = new Set<string>();
  const gone = snap.docs.flatMap((d) => {
    const uid = d.get('uid') as string | undefined;
    const channelId = d.get('channelId') as string | undefined;
    const lastError = d.get('lastError') as string | null | undefined;
    const kind = d.get('channel') as ChannelKind | undefined;
    if (!uid || !channelId || !kind || !lastError?.startsWith(GONE) || seen.has(`${uid}/${channelId}`)) return [];
    seen.add(`${uid}/${channelId}`);
    const at = toDate(d.get('firstAttemptAt')) ?? toDate(d.get('createdAt'));
    return [{ uid, channelId, kind, reason: lastError.slice(GONE.length), at }];
  });
  if (gone.length === 0) return [];
  const uids = [...new Set(gone.map((g) => g.uid))];
  // The channels field alone: the rest of the subscriber is no business of this list.
  const users = await db.getAll(...uids.map((uid) => db.collection(COLLECTIONS.subscribers).doc(uid)), { fieldMask: ['channels'] });
  const channelsOf = new Map(users.map((u) => [u.id, readChannels(u.get('channels'))]));
  return gone
    .map((g): DisabledChannelView => {
      const channel = channelsOf.get(g.uid)?.find((c) => c.id === g.channelId);
      return {
        kind: g.kind,
        subscriber: maskEmail(Buffer.from(g.uid, 'base64url').toString('utf8')),
        disabledAt: channel?.disabledAt ?? g.at,
        reason: channel?.disabledReason ?? g.reason,
        now: channel?.status ?? 'removed',
      };
    })
    .sort((a, b) => (b.disabledAt?.getTime() ?? 0) - (a.disabledAt?.getTime() ?? 0));
}

/** What a run record gives this view: when it started, and its `stats.channels`. */
export type RunChannels = { startedAt: Date | null; channels: ChannelRunStats | null };

const countOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);
const isKind = (v: string): v is ChannelKind => (CHANNEL_KINDS as readonly string[]).includes(v);

/**
 * runs/{runId}.stats.channels as stored: null for a run whose messages step did not run (or
 * recorded before channels). Anything that is not a count reads as 0, a kind this code does not
 * know is left out: an odd record can skew a sum, never break the page.
 */
export function readRunChannels(value: unknown): ChannelRunStats | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const byChannel: ChannelRunStats['byChannel'] = {};
  if (typeof v.byChannel === 'object' && v.byChannel !== null)
    for (const [kind, counts] of Object.entries(v.byChannel as Record<string, unknown>)) {
      if (!isKind(kind) || typeof counts !== 'object' || counts === null) continue;
      const c = counts as Record<string, unknown>;
      byChannel[kind] = { sent: countOf(c.sent), failed: countOf(c.failed) };
    }
  return {
    sent: countOf(v.sent),
    failed: countOf(v.failed),
    dead: countOf(v.dead),
    skipped: countOf(v.skipped),
    retried: countOf(v.retried),
    disabled: countOf(v.disabled),
    byChannel,
  };
}

export function sumRunChannels(runs: RunChannels[]): RecentChannelRuns {
  const sum: RecentChannelRuns = {
    runs: runs.length,
    runsWithChannels: 0,
    since: null,
    sent: 0,
    failed: 0,
    dead: 0,
    skipped: 0,
    retried: 0,
    disabled: 0,
    byChannel: Object.fromEntries(CHANNEL_KINDS.map((kind) => [kind, { sent: 0, failed: 0 }])) as RecentChannelRuns['byChannel'],
  };
  for (const run of runs) {
    if (run.startedAt && (!sum.since || run.startedAt < sum.since)) sum.since = run.startedAt;
    if (!run.channels) continue;
    sum.runsWithChannels += 1;
    for (const field of ['sent', 'failed', 'dead', 'skipped', 'retried', 'disabled'] as const) sum[field] += run.channels[field];
    for (const kind of CHANNEL_KINDS) {
      sum.byChannel[kind].sent += run.channels.byChannel[kind]?.sent ?? 0;
      sum.byChannel[kind].failed += run.channels.byChannel[kind]?.failed ?? 0;
    }
  }
  return sum;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `scout status`'s lines: the states by kind, the messages waiting, the recent runs' sums, then each channel recently disabled. */
export function channelStatusText(c: ChannelsView): string[] {
  const kinds = CHANNEL_KINDS.map((kind) => {
    const states = CHANNEL_STATUSES.filter((status) => c.subscribers[kind][status] > 0).map(
      (status) => `${c.subscribers[kind][status]} ${status}`,
    );
    return `${kind} ${states.length === 0 ? 'none' : states.join(', ')}`;
  });
  const r = c.recent;
  const perKind = CHANNEL_KINDS.filter((kind) => r.byChannel[kind].sent + r.byChannel[kind].failed > 0).map(
    (kind) => `${kind} ${r.byChannel[kind].sent} sent ${r.byChannel[kind].failed} failed`,
  );
  const runs =
    r.runs === 0
      ? 'channels: no runs yet'
      : `channels: the latest ${plural(r.runs, 'run')} (${r.runsWithChannels} with a messages step${r.since ? `, since ${r.since.toISOString()}` : ''}): ${r.sent} sent, ${r.failed} failed, ${r.dead} dead, ${r.skipped} skipped, ${r.retried} to retry, ${plural(r.disabled, 'channel')} disabled as gone${perKind.length > 0 ? `; ${perKind.join(', ')}` : ''}`;
  return [
    `channels: ${kinds.join('; ')} (subscribers with one or more channels of the kind in that state)`,
    `channels: ${plural(c.waiting.pending, 'message')} pending, ${c.waiting.sending} sending`,
    runs,
    ...(c.disabled.length === 0
      ? [`channels: none disabled as gone among the newest ${DISABLED_LOOKBACK} failed messages`]
      : c.disabled.map(
          (d) =>
            `channel disabled: ${d.kind} of ${d.subscriber} at ${d.disabledAt?.toISOString() ?? '?'}: ${d.reason} (${d.now === 'disabled' ? 'still disabled' : `now ${d.now}`})`,
        )),
  ];
}
