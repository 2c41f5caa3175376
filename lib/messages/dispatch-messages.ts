import type { DocumentReference, Firestore, QueryDocumentSnapshot, Timestamp } from 'firebase-admin/firestore';
import type { ChannelKind } from '../channels/channel';
import type { ChannelSendOutcome } from '../channels/channel-outcome';
import type { Failpoint } from '../runtime/failpoints';
import type { Logger } from '../runtime/logger';
import { ownsSubscriber, type Shard } from '../runtime/shard';
import type { ChannelRunStats } from '../ledger/runs';
import { takeLease, writeHeld } from '../store/lease';
import { shortHash } from '../store/short-hash';
import { subscribersCollection } from '../subscribers/subscriber';
import { messagesCollection, webhookMessageId, type MessageRow } from './message-row';
import { reasonNotToSend, stepAfterAbandoned, stepAfterAnswer, type MessageStep } from './message-rules';

/** How long a leased message is ours: a send's timeout, a limiter's wait and the record, with room to spare. */
export const MESSAGE_LEASE_MS = 60_000;
/** Due rows read a page at a time (memory stays flat however long the backlog), and abandoned ones considered per run. */
const MESSAGES_PAGE = 2_000;
/** Destinations sent to at once: each is sent to one message at a time, in order, at its platform's pace. */
const DESTINATIONS_AT_ONCE = 16;
/** The longest a leased message waits for its destination's turn; past it (Telegram may ask for an hour) it goes back to pending until then. */
const MAX_TURN_WAIT_MS = 15_000;

/** A channel's platform, as the dispatcher uses it: each destination's pace, and one send. */
export type ChannelSender = {
  /** How long until the destination may be sent to (0: now): a wait past the run's patience is left to a later run. */
  readyInMs(target: { kind: ChannelKind; destination: string }): number;
  /** Waits for the destination's turn, sends, and lets its limiter learn from the answer (a 429's retry-after, Discord's bucket). */
  send(
    target: { kind: ChannelKind; destination: string; secret: string | null },
    request: { body: string; messageId: string; attempt: number },
  ): Promise<ChannelSendOutcome>;
};

export type MessageDispatchDeps = {
  db: Firestore;
  channelSender: ChannelSender;
  clock: () => Date;
  outOfTime: () => boolean;
  log: Logger;
  failpoint?: Failpoint;
  /** A destination answered "gone": disable the channel and tell the subscriber (channel-gone.ts). */
  channelGone: (row: MessageRow, reason: string) => Promise<void>;
};

/** What a dispatch of messages did, as the run record keeps it. */
export type MessageStats = ChannelRunStats;

export const emptyMessageStats = (): MessageStats => ({ sent: 0, failed: 0, dead: 0, skipped: 0, retried: 0, disabled: 0, byChannel: {} });

/**
 * dispatch messages: the channels' outbox, apart from email's so one channel's failure never delays
 * another's, nor email. Rows whose sender died are settled per their kind (message-rules.ts); then
 * the pending rows whose time has come are sent, one destination's rows in order at its platform's
 * pace, many destinations at once, each row: wait for the destination → lease → re-check the
 * opt-outs → send → record.
 */
export async function dispatchMessages(
  deps: MessageDispatchDeps,
  input: { runId: string; shard?: Shard; pageSize?: number },
): Promise<MessageStats> {
  const pageSize = input.pageSize ?? MESSAGES_PAGE;
  const stats = emptyMessageStats();
  const now = deps.clock();
  await settleAbandoned(deps, input, stats, now);
  // A page at a time, each after the last row of the one before: memory stays flat however long
  // the backlog, and the time budget, not a count, ends a long dispatch. A shard's run sends only
  // its own subscribers' rows and steps past the others' (their own shard's run sends them).
  let after: QueryDocumentSnapshot<MessageRow> | null = null;
  for (;;) {
    if (deps.outOfTime()) return stats;
    const query = messagesCollection(deps.db).where('status', '==', 'pending').where('notBefore', '<=', now).orderBy('notBefore');
    const due = await (after ? query.startAfter(after) : query).limit(pageSize).get();
    const ours = due.docs.filter((doc) => ownsSubscriber(input.shard, doc.get('uid') as string));
    await sendPage(deps, input, ours, stats);
    if (due.size < pageSize) return stats;
    after = due.docs[due.docs.length - 1];
  }
}

/** One page of due rows: each destination's rows in order, DESTINATIONS_AT_ONCE destinations at a time. */
async function sendPage(
  deps: MessageDispatchDeps,
  input: { runId: string },
  docs: QueryDocumentSnapshot<MessageRow>[],
  stats: MessageStats,
) {
  const byDestination = new Map<string, QueryDocumentSnapshot<MessageRow>[]>();
  for (const doc of docs) byDestination.set(destinationOf(doc.data()), [...(byDestination.get(destinationOf(doc.data())) ?? []), doc]);
  const queues = [...byDestination.values()];
  const workers = Array.from({ length: Math.min(DESTINATIONS_AT_ONCE, queues.length) }, async () => {
    for (let queue = queues.shift(); queue; queue = queues.shift())
      for (const doc of queue) {
        if (deps.outOfTime()) return;
        await sendOne(deps, input, doc, stats);
      }
  });
  await Promise.all(workers);
}

async function settleAbandoned(deps: MessageDispatchDeps, input: { runId: string }, stats: MessageStats, now: Date) {
  const abandoned = await messagesCollection(deps.db)
    .where('status', '==', 'sending')
    .where('leaseUntil', '<=', now)
    .limit(MESSAGES_PAGE)
    .get();
  for (const doc of abandoned.docs) {
    const taken = await takeLease(
      doc.ref,
      (snap) => {
        const row = snap.data();
        if (!row || row.status !== 'sending' || !row.leaseUntil || row.leaseUntil > now) return { done: null };
        const step = stepAfterAbandoned(row, now);
        return { take: stepFields(step, input.runId, row), as: { row, step } };
      },
      { read: doc },
    );
    if (!('taken' in taken) || !taken.as) continue;
    const { row, step } = taken.as;
    count(stats, row, step);
    if (step.status === 'pending') stats.retried += 1;
    logStep(deps, input, doc.id, row, step);
  }
}

/** A channel's messages go out one at a time, in order: they are one destination. */
const destinationOf = (row: Pick<MessageRow, 'uid' | 'channelId'>) => `${row.uid}/${row.channelId}`;

/**
 * One message: the lease (fenced by the version the query read: a row that moved meanwhile is left
 * to whoever moved it), the opt-out check, the destination's turn, the send, the record.
 */
async function sendOne(
  deps: MessageDispatchDeps,
  input: { runId: string },
  doc: QueryDocumentSnapshot<MessageRow>,
  stats: MessageStats,
): Promise<void> {
  const ref = doc.ref;
  const now = deps.clock();
  const lease = await takeLease(
    ref,
    (snap) => {
      const row = snap.data();
      if (!row || row.status !== 'pending' || (row.notBefore && row.notBefore > now)) return { done: null };
      return {
        take: {
          status: 'sending',
          leaseOwner: input.runId,
          leaseUntil: new Date(now.getTime() + MESSAGE_LEASE_MS),
          attempts: row.attempts + 1,
          firstAttemptAt: row.firstAttemptAt ?? now,
        },
        as: { ...row, attempts: row.attempts + 1 },
      };
    },
    { read: doc },
  );
  if (!('taken' in lease) || !lease.as) return;
  const row = lease.as;
  // Opt-outs win, read again right before the send: a paused or removed channel, or a subscriber who left, gets nothing.
  const subscriber = (await subscribersCollection(deps.db).doc(row.uid).get()).data() ?? null;
  const current = subscriber?.channels?.find((c) => c.id === row.channelId);
  const reason = reasonNotToSend(subscriber && { status: subscriber.status, channels: subscriber.channels ?? [] }, row);
  if (reason || !current || !row.body) {
    const step: MessageStep = { status: 'skipped', lastError: reason ?? 'no_body', notBefore: null };
    await record(deps, ref, lease.taken, step, input.runId, row);
    count(stats, row, step);
    return;
  }
  const waitMs = deps.channelSender.readyInMs(current);
  if (waitMs > MAX_TURN_WAIT_MS) {
    // Not tried: handed back, its attempt not counted, for the run after the destination's wait.
    const step: MessageStep = { status: 'pending', lastError: row.lastError, notBefore: new Date(now.getTime() + waitMs) };
    await record(deps, ref, lease.taken, step, input.runId, row, { attempts: row.attempts - 1 });
    return;
  }
  await deps.failpoint?.('before-message-send', { messageKey: ref.id });
  const outcome = await deps.channelSender.send(current, { body: row.body, messageId: webhookMessageId(ref.id), attempt: row.attempts });
  await deps.failpoint?.('after-message-send', { messageKey: ref.id });
  const step = stepAfterAnswer(row, outcome, deps.clock());
  await record(deps, ref, lease.taken, step, input.runId, row);
  count(stats, row, step);
  if (step.status === 'pending') stats.retried += 1;
  logStep(deps, input, ref.id, row, step);
  if (step.disableChannel) {
    stats.disabled += 1;
    await deps.channelGone(row, step.disableChannel);
  }
}

/** The result, fenced by our lease: a run that took the row over after our lease expired keeps it. */
async function record(
  deps: MessageDispatchDeps,
  ref: DocumentReference<MessageRow>,
  version: Timestamp,
  step: MessageStep,
  runId: string,
  row: MessageRow,
  extra: { attempts?: number } = {},
) {
  const written = await writeHeld(ref, version, { ...stepFields(step, runId, row, deps.clock()), ...extra });
  if (!written) deps.log('message.record_lost', { runId, message: shortHash(ref.id, 12), status: step.status });
}

/** The fields a step writes: the lease let go, and a final row's body dropped (nothing can send it again). */
function stepFields(step: MessageStep, runId: string, row: Pick<MessageRow, 'body'>, now?: Date) {
  const final = step.status !== 'pending';
  return {
    status: step.status,
    lastError: step.lastError,
    notBefore: step.notBefore,
    leaseOwner: final ? runId : null,
    leaseUntil: null,
    body: final ? null : row.body,
    ...(step.status === 'sent' ? { sentAt: now ?? null, detail: step.detail ?? null } : {}),
  };
}

function count(stats: MessageStats, row: Pick<MessageRow, 'channel'>, step: MessageStep) {
  const of = (stats.byChannel[row.channel] ??= { sent: 0, failed: 0 });
  if (step.status === 'sent') {
    stats.sent += 1;
    of.sent += 1;
  } else if (step.status === 'failed' || step.status === 'dead') {
    stats[step.status] += 1;
    of.failed += 1;
  } else if (step.status === 'skipped') stats.skipped += 1;
}

function logStep(
  deps: MessageDispatchDeps,
  input: { runId: string },
  key: string,
  row: Pick<MessageRow, 'channel' | 'kind'>,
  step: MessageStep,
) {
  if (step.status === 'sent') return;
  deps.log(`message.${step.status}`, {
    runId: input.runId,
    message: shortHash(key, 12),
    channel: row.channel,
    kind: row.kind,
    error: step.lastError,
  });
}
