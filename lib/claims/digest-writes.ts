import { Timestamp, type Firestore } from 'firebase-admin/firestore';
import { updateQueuedItem } from '../ledger/update-queued-item';
import { digestEmailKey, outboxCollection, payloadOf, type OutboxRow } from '../outbox/outbox-row';
import { isLostRace } from '../store/firestore-errors';
import { commitAtomicWritesAt, DELIVERY_BYTES, payloadBytes, type AtomicWrite } from '../store/atomic-writes';
import { digestWrites, firstWriteSize, type DigestWrite, type FlushPlan } from './digest-plan';
import type { FlushContext } from './flush-context';

export type ComposedDigest = { plan: FlushPlan; row: OutboxRow | null };

/** What writing some composed digests came to: what landed, the subscribers to read again, the digests held back for later. */
type Landed = { claimed: number; items: number; skippedSubscribers: number; notAFit: number; lost: string[]; held: ComposedDigest[] };

/**
 * One wave of composed digests, written: sealed digests as whole sets (their rows with their first
 * closes, all or nothing), every other close in its own group; the sets that landed go to the
 * run's sender at once. With `holdOpenBatch` (more waves to come), the digests of the last set, if it
 * is not full, are held back and written with the next wave, so the cut between waves does not
 * cut a provider request short. Counts what landed; `lost` are the subscribers any of whose
 * writes lost a race, to be read again; `held` what waits for the next wave.
 */
export async function commitDigests(ctx: FlushContext, wave: ComposedDigest[], options: { holdOpenBatch: boolean }): Promise<Landed> {
  const fresh = wave.flatMap(({ plan, row }, i) =>
    row ? [{ emailKey: digestEmailKey(plan.uid, plan.period), row, plan, index: i, writes: firstWriteSize(plan) }] : [],
  );
  const sets = ctx.runSender ? ctx.runSender.seal(fresh) : [];
  const heldBatch = options.holdOpenBatch && sets.at(-1)?.open ? sets.pop()! : null;
  const heldBack = new Set(heldBatch?.members.map((m) => m.index) ?? []);
  const landed: Landed = {
    claimed: 0,
    items: 0,
    skippedSubscribers: 0,
    notAFit: 0,
    lost: [],
    held: wave.filter((_, i) => heldBack.has(i)),
  };
  const sealed = new Set(sets.flatMap((set) => set.members.map((m) => m.index)));
  const groups = [
    // Sealed digests: each set's rows, with their first closes, created all or nothing.
    ...sets.map((set) => ({
      write: combined(
        set.members.map((m) => writeGroup(ctx.db, digestWrites(m.plan, set.stored(m))[0])),
        set.packBytes,
      ),
      plans: set.members.map((m) => m.index),
    })),
    ...wave.flatMap(({ plan, row }, i) =>
      heldBack.has(i)
        ? []
        : digestWrites(plan, row)
            .filter((_, g) => !(g === 0 && sealed.has(i)))
            .map((part) => ({ write: writeGroup(ctx.db, part), plans: [i] })),
    ),
  ];
  const committed = ctx.commit
    ? await commitFlush(
        ctx,
        groups.map((g) => g.write),
      )
    : groups.map(() => PLANNED);
  const lostPlans = new Set(groups.flatMap((g, j) => (committed[j] ? [] : g.plans)));
  if (ctx.runSender)
    await ctx.runSender.offer(
      sets.flatMap((set, j) => (committed[j] ? [{ set, writtenAt: committed[j] }] : [])),
      'flush',
    );
  wave.forEach(({ plan }, i) => {
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

/** A part of a digest's writes as one all-or-nothing write group: the row's create(), then its items' guarded updates. */
function writeGroup(db: Firestore, part: DigestWrite): AtomicWrite {
  const { row, updates } = part;
  return {
    size: updates.length + (row ? 1 : 0),
    bytes: updates.length * DELIVERY_BYTES + (row ? payloadBytes(payloadOf(row)) : 0),
    apply(batch) {
      if (row) batch.create(outboxCollection(db).doc(part.emailKey), row);
      for (const update of updates) updateQueuedItem(batch, db, update);
    },
  };
}

async function commitFlush(ctx: FlushContext, groups: AtomicWrite[]): Promise<(Timestamp | null)[]> {
  await ctx.failpoint('before-digest-commit');
  return commitAtomicWritesAt(ctx.db, groups, isLostRace);
}

/** A dry run's stand-in for a commit time: every plan counts as landed, and nothing is fenced by it. */
const PLANNED = Timestamp.fromMillis(0);

/** Several groups as one, all or nothing: a sealed set of digests is created whole or not at all. */
function combined(groups: AtomicWrite[], extraBytes: number): AtomicWrite {
  return {
    size: groups.reduce((n, g) => n + g.size, 0),
    bytes: groups.reduce((n, g) => n + (g.bytes ?? 0), extraBytes),
    apply: (batch) => groups.forEach((g) => g.apply(batch)),
  };
}
