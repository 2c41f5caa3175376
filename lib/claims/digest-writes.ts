import { Timestamp, type Firestore } from 'firebase-admin/firestore';
import { updateQueuedItem } from '../ledger/update-queued-item';
import { digestEmailKey, outboxCollection, payloadOf, type OutboxRow } from '../outbox/outbox-row';
import { isLostRace } from '../store/firestore-errors';
import { commitAtomicWritesAt, DELIVERY_BYTES, payloadBytes, type AtomicWrite } from '../store/atomic-writes';
import { digestWrites, firstWriteSize, type DigestWrite, type FlushPlan } from './digest-plan';
import type { FlushContext } from './flush-context';
import { messagesCollection } from '../messages/message-row';
import type { PlannedMessage } from '../messages/plan-messages';

/** A digest as composed: its plan, its email's row (none when nothing is listed), its channels' copies (created with the row). */
export type ComposedDigest = { plan: FlushPlan; row: OutboxRow | null; messages: PlannedMessage[] };

/** What writing some composed digests came to: what landed, the subscribers to read again, the digests held back for later. */
type Landed = { claimed: number; items: number; skippedSubscribers: number; notAFit: number; lost: string[]; held: ComposedDigest[] };

/**
 * One batch of composed digests, written: packed digests as whole send batches (their rows with
 * their first closes, all or nothing), every other close in its own atomic write; the send batches
 * that landed go to the run's sender at once. With `holdOpenBatch` (more compose batches to come),
 * the digests of the last send batch, if it is not full, are held back and written with the next
 * compose batch, so the cut between compose batches does not cut a provider request short. Counts
 * what landed; `lost` are the subscribers any of whose writes lost a race, to be read again; `held`
 * what waits for the next compose batch.
 */
export async function commitDigests(ctx: FlushContext, composed: ComposedDigest[], options: { holdOpenBatch: boolean }): Promise<Landed> {
  const fresh = composed.flatMap(({ plan, row, messages }, i) =>
    row
      ? [{ emailKey: digestEmailKey(plan.uid, plan.period), row, plan, messages, index: i, writes: firstWriteSize(plan) + messages.length }]
      : [],
  );
  const sendBatches = ctx.runSender ? ctx.runSender.pack(fresh) : [];
  const heldBatch = options.holdOpenBatch && sendBatches.at(-1)?.open ? sendBatches.pop()! : null;
  const heldBack = new Set(heldBatch?.members.map((m) => m.index) ?? []);
  const landed: Landed = {
    claimed: 0,
    items: 0,
    skippedSubscribers: 0,
    notAFit: 0,
    lost: [],
    held: composed.filter((_, i) => heldBack.has(i)),
  };
  const packed = new Set(sendBatches.flatMap((sendBatch) => sendBatch.members.map((m) => m.index)));
  const atomicWrites = [
    // Packed digests: each send batch's rows, with their first closes, created all or nothing.
    ...sendBatches.map((sendBatch) => ({
      write: combined(
        sendBatch.members.map((m) => atomicWrite(ctx.db, digestWrites(m.plan, sendBatch.stored(m))[0], m.messages)),
        sendBatch.packBytes,
      ),
      plans: sendBatch.members.map((m) => m.index),
    })),
    ...composed.flatMap(({ plan, row, messages }, i) =>
      heldBack.has(i)
        ? []
        : digestWrites(plan, row)
            .map((part, g) => ({ part, messages: g === 0 ? messages : [] }))
            .filter((_, g) => !(g === 0 && packed.has(i)))
            .map(({ part, messages: withPart }) => ({ write: atomicWrite(ctx.db, part, withPart), plans: [i] })),
    ),
  ];
  const committed = ctx.commit
    ? await commitFlush(
        ctx,
        atomicWrites.map((w) => w.write),
      )
    : atomicWrites.map(() => PLANNED);
  const lostPlans = new Set(atomicWrites.flatMap((w, j) => (committed[j] ? [] : w.plans)));
  if (ctx.runSender)
    await ctx.runSender.offer(
      sendBatches.flatMap((sendBatch, j) => (committed[j] ? [{ sendBatch, writtenAt: committed[j] }] : [])),
      'flush',
    );
  composed.forEach(({ plan }, i) => {
    if (heldBack.has(i)) return;
    if (lostPlans.has(i)) return void landed.lost.push(plan.uid);
    landed.notAFit += plan.notAFit;
    if (plan.top.length > 0) {
      landed.claimed += 1;
      landed.items += plan.top.length;
    } else if (plan.closed.length > 0) landed.skippedSubscribers += 1;
  });
  return landed;
}

/** A part of a digest's writes as one atomic write: the row's create() with its channels' messages, then its items' guarded updates. */
function atomicWrite(db: Firestore, part: DigestWrite, messages: PlannedMessage[] = []): AtomicWrite {
  const { row, updates } = part;
  return {
    size: updates.length + (row ? 1 : 0) + messages.length,
    bytes:
      updates.length * DELIVERY_BYTES +
      (row ? payloadBytes(payloadOf(row)) : 0) +
      messages.reduce((n, m) => n + (m.row.body?.length ?? 0) + 500, 0),
    apply(batch) {
      if (row) batch.create(outboxCollection(db).doc(part.emailKey), row);
      for (const m of messages) batch.create(messagesCollection(db).doc(m.key), m.row);
      for (const update of updates) updateQueuedItem(batch, db, update);
    },
  };
}

async function commitFlush(ctx: FlushContext, writes: AtomicWrite[]): Promise<(Timestamp | null)[]> {
  await ctx.failpoint('before-digest-commit');
  return commitAtomicWritesAt(ctx.db, writes, isLostRace);
}

/** A dry run's stand-in for a commit time: every plan counts as landed, and nothing is fenced by it. */
const PLANNED = Timestamp.fromMillis(0);

/** Several atomic writes as one, all or nothing: a packed send batch of digests is created whole or not at all. */
function combined(writes: AtomicWrite[], extraBytes: number): AtomicWrite {
  return {
    size: writes.reduce((n, w) => n + w.size, 0),
    bytes: writes.reduce((n, w) => n + (w.bytes ?? 0), extraBytes),
    apply: (batch) => writes.forEach((w) => w.apply(batch)),
  };
}
