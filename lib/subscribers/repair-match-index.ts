import { FieldPath, FieldValue, type DocumentReference, type Firestore, type WriteBatch } from 'firebase-admin/firestore';
import type { Logger } from '../runtime/logger';
import { COLLECTIONS } from '../store/collections';
import { DAY_MS, toDate, type Stored } from '../store/timestamps';
import {
  allIndexShards,
  entryForStored,
  matchIndexCollection,
  matchIndexShardId,
  matchIndexShardOf,
  matchIndexShardRef,
  readIndexShards,
  type IndexEntry,
} from './match-index';
import { DEFAULT_MATCH_INDEX_SHARDS, indexLayoutOf, layoutOf, repairStateRef } from './match-index-layout';
import { isRefusedByLimits, markShardRefused } from './match-index-refusal';

/**
 * The repair sweep: walks users/ in id order, a few pages a run from where the last run stopped,
 * and compares each subscriber's match index entry with the one their document calls for. A
 * difference (drift: an entry missing, stale, or left behind by someone no longer active) is
 * fixed in a transaction that reads the subscriber again, so the fix is made from what is stored
 * now and is ordered with any writer of that subscriber.
 *
 * The sweep also keeps the layout (match-index-layout.ts). When MATCH_INDEX_SHARDS differs from the
 * layout in force, one run stores it as the layout being built and starts its sweep without
 * walking: writers write both layouts from their next read of the cursor (a write that read it a
 * moment before lands in the old layout only, so the walk waits a run for it to land, then reads
 * users/ after it), and runs go on reading the layout in force. The sweep of the layout being built
 * (or, on a new deployment, of the default layout) is the build: when it reaches the end, it stamps
 * `builtAt` on every shard, the layout is in force (runs read the index instead of users/, or
 * instead of the old layout) and the shards of any other layout are deleted. After that a sweep
 * starts once every REPAIR_EVERY_MS, so checking costs about one read per subscriber a day, against
 * one per subscriber per run without the index.
 *
 * A shard that refuses a fix (past a production limit) is recorded — `fullAt` on the shard, the
 * sweep's `refused` figures and shards here, a log line — and the sweep goes on with the others;
 * it is not stamped `builtAt` when the sweep ends, so runs read users/ until a larger layout is.
 *
 * cursors/match-index-repair holds the layout, where the sweep is and what the last complete one
 * found (`scout status` shows it).
 *
 * It stays in the cycle, not among the migrations `scout migrate` applies once (lib/ledger/migrations/):
 * what it repairs is not left by older code but made at any time by this one — an entry a full
 * shard refused, a write that lost its index write — and the layout it builds follows
 * MATCH_INDEX_SHARDS, a setting an operator changes without a new schema version.
 */
export { MATCH_INDEX_REPAIR } from './match-index-layout';
export const REPAIR_EVERY_MS = DAY_MS;
const PAGE = 1_000;
/** The fewest pages a run checks; more once the subscribers are many (sweepPages). */
const PAGES_PER_RUN = 5;
/**
 * A sweep is to end within this many runs (half a day at one run each 15 minutes), however many
 * subscribers there are: at 5 pages a run it would cover 480,000 a day, and at 1,000,000 one check
 * would take two days. The total per day is the same (one read per subscriber); each run reads more.
 */
export const SWEEP_RUNS = 48;
/** Subscribers fixed per transaction (each is one read, their shards one write each). */
const FIXES_PER_BATCH = 200;
/** Writes per batch when the sweep stamps or deletes shards (Firestore takes 500). */
const SHARD_WRITES = 400;

export type SweepFigures = { startedAt: Date; checked: number; drift: number; fixed: number; refused: number };
export type RepairState = {
  /** The layout in force: `"<K> shards"`. */
  layout: string;
  /** The layout being built, when MATCH_INDEX_SHARDS changed; null otherwise. */
  building: string | null;
  /** The last subscriber id the sweep in progress has checked; null before its first page. */
  after: string | null;
  /** The sweep in progress, null when none is. */
  sweep: SweepFigures | null;
  /** The shards that refused a fix in the sweep in progress: not vouched for when it ends. */
  refusedShards: number[];
  lastSweep: (SweepFigures & { finishedAt: Date; refusedShards: number[] }) | null;
};

export type RepairResult = {
  ran: boolean;
  checked: number;
  drift: number;
  fixed: number;
  /** Fixes a full shard refused this run (left for a larger layout). */
  refused: number;
  finished: boolean;
  /** Set by the run that stored a new layout (and started its build). */
  layoutChangedTo?: number;
};

/** cursors/match-index-repair as runRepair writes it: a RepairState with its instants as Timestamps. */
type StoredRepairState = Pick<RepairState, 'layout' | 'after'> & {
  building?: string | null;
  sweep: Stored<SweepFigures> | null;
  refusedShards?: number[];
  lastSweep: Stored<SweepFigures & { finishedAt: Date; refusedShards?: number[] }> | null;
};

export async function readRepairState(db: Firestore): Promise<RepairState | null> {
  const data = (await repairStateRef(db).get()).data() as StoredRepairState | undefined;
  if (!data) return null;
  const figures = (f: Stored<SweepFigures> | null | undefined): SweepFigures | null =>
    f
      ? {
          startedAt: toDate(f.startedAt) ?? new Date(0),
          checked: f.checked ?? 0,
          drift: f.drift ?? 0,
          fixed: f.fixed ?? 0,
          refused: f.refused ?? 0,
        }
      : null;
  const last = figures(data.lastSweep);
  return {
    layout: data.layout ?? '',
    building: data.building ?? null,
    after: data.after ?? null,
    sweep: figures(data.sweep),
    refusedShards: data.refusedShards ?? [],
    lastSweep: last
      ? { ...last, finishedAt: toDate(data.lastSweep?.finishedAt) ?? new Date(0), refusedShards: data.lastSweep?.refusedShards ?? [] }
      : null,
  };
}

const nothing = { checked: 0, drift: 0, fixed: 0, refused: 0 };

/**
 * Pages of subscribers a run checks: enough for a sweep over `subscribers` (what the index holds,
 * or what the last sweep checked, whichever is more) to end within SWEEP_RUNS runs.
 */
export const sweepPages = (subscribers: number, pageSize = PAGE) =>
  Math.max(PAGES_PER_RUN, Math.ceil(subscribers / (SWEEP_RUNS * pageSize)));

const indexEntries = (shards: { profiles: Map<string, unknown> }[]) => shards.reduce((n, s) => n + s.profiles.size, 0);

/**
 * One run's share of the sweep: nothing (one read) while the last sweep of this layout is recent,
 * otherwise up to sweepPages pages of subscribers, stopping early when `outOfTime` says so.
 * `shards` is the layout asked for (MATCH_INDEX_SHARDS); a run that finds it neither in force nor
 * being built stores it as the one being built and does nothing else (one asked for that is in
 * force while another is being built abandons that build).
 */
export async function repairMatchIndex(
  db: Firestore,
  input: { now: Date; outOfTime?: () => boolean; pageSize?: number; pagesPerRun?: number; shards?: number; log?: Logger },
): Promise<RepairResult> {
  const asked = input.shards ?? DEFAULT_MATCH_INDEX_SHARDS;
  const pageSize = input.pageSize ?? PAGE;
  const state = await readRepairState(db);
  const stored = indexLayoutOf(state);
  const layoutChange = await changeLayoutIfAsked(db, { asked, stored, state, now: input.now, log: input.log });
  if (layoutChange) return layoutChange;
  const count = asked;
  const layout = layoutOf(count);
  const current = state && (stored.building !== null || state.layout === layout) ? state : null;
  const recent =
    stored.building === null && current?.lastSweep && input.now.getTime() - current.lastSweep.finishedAt.getTime() < REPAIR_EVERY_MS;
  if (!current?.sweep && recent) return { ran: false, ...nothing, finished: false };

  const sweep: SweepFigures = current?.sweep ?? { startedAt: input.now, ...nothing };
  const refusedShards = new Set(current?.sweep ? current.refusedShards : []);
  let after = current?.sweep ? current.after : null;
  const shards = await readIndexShards(db, allIndexShards(count), count);
  // A new sweep looks at every shard afresh: a shard marked full before it is marked again if it still refuses.
  if (!current?.sweep)
    await writeShards(
      shards.filter((s) => s.fullAt).map((s) => matchIndexShardRef(db, s.k, count)),
      { fullAt: FieldValue.delete() },
    );
  const run = { ...nothing };
  let finished = false;
  const pages = input.pagesPerRun ?? sweepPages(Math.max(indexEntries(shards), current?.lastSweep?.checked ?? 0), pageSize);
  for (let page = 0; page < pages && !input.outOfTime?.(); page++) {
    const checked = await checkPage(db, { after, pageSize, shards, count, log: input.log });
    run.checked += checked.size;
    run.drift += checked.drift;
    run.fixed += checked.fixes.fixed;
    run.refused += checked.fixes.refused;
    for (const k of checked.fixes.refusedShards) refusedShards.add(k);
    finished = checked.last === null;
    after = checked.last;
    if (finished) break;
  }
  const figures: SweepFigures = {
    startedAt: sweep.startedAt,
    checked: sweep.checked + run.checked,
    drift: sweep.drift + run.drift,
    fixed: sweep.fixed + run.fixed,
    refused: sweep.refused + run.refused,
  };
  await saveSweep(db, { finished, figures, count, layout, stored, current, after, refusedShards, now: input.now, log: input.log });
  return { ran: true, ...run, finished };
}

/**
 * When the layout asked for is neither in force nor being built, stores it as the one being built
 * (runs go on reading the one in force, which writers keep writing too); when the layout in force
 * is asked for again before a build ended, abandons the build (its shards go at the next sweep's
 * end). Either is the run's whole share; null when the layout asked for is already in hand.
 */
async function changeLayoutIfAsked(
  db: Firestore,
  input: { asked: number; stored: ReturnType<typeof indexLayoutOf>; state: RepairState | null; now: Date; log?: Logger },
): Promise<RepairResult | null> {
  const { asked, stored, state } = input;
  const building = asked !== stored.shards && asked !== stored.building;
  const abandoning = asked === stored.shards && stored.building !== null;
  if (!building && !abandoning) return null;
  await repairStateRef(db).set({
    layout: layoutOf(stored.shards),
    building: building ? layoutOf(asked) : null,
    after: null,
    sweep: building ? ({ startedAt: input.now, ...nothing } satisfies SweepFigures) : null,
    refusedShards: [],
    lastSweep: state?.lastSweep ?? null,
  });
  input.log?.('match_index_layout_building', { from: building ? stored.shards : stored.building, to: asked });
  return { ran: true, ...nothing, finished: false, layoutChangedTo: asked };
}

/**
 * One page of subscribers after `after`, held against the index: what drifted, and the fixes
 * made. `last` is the page's last id, or null when it was the last page.
 */
async function checkPage(
  db: Firestore,
  input: { after: string | null; pageSize: number; shards: Awaited<ReturnType<typeof readIndexShards>>; count: number; log?: Logger },
) {
  const { after, pageSize, shards, count } = input;
  let query = db.collection(COLLECTIONS.subscribers).orderBy(FieldPath.documentId()).limit(pageSize);
  if (after) query = query.startAfter(after);
  const snap = await query.get();
  const last = snap.size < pageSize ? null : snap.docs[snap.docs.length - 1].id;
  // Entries with an id in this page's range but no document in it belong to nobody: drift too.
  const inRange = (uid: string) => (after === null || uid > after) && (last === null || uid <= last);
  const wanted = new Map<string, IndexEntry | undefined>();
  for (const doc of snap.docs) wanted.set(doc.id, entryForStored(doc.id, doc.data()));
  const drifted: string[] = [];
  for (const [uid, want] of wanted) if (shards[matchIndexShardOf(uid, count)].profiles.get(uid) !== want) drifted.push(uid);
  for (const shard of shards) for (const uid of shard.profiles.keys()) if (inRange(uid) && !wanted.has(uid)) drifted.push(uid);
  const fixes = await fixEntries(db, drifted, count, input.log);
  return { size: snap.size, drift: drifted.length, fixes, last };
}

/** The sweep's state after this run's share: finished (the layout in force, its figures kept as the last sweep) or where to go on. */
async function saveSweep(
  db: Firestore,
  input: {
    finished: boolean;
    figures: SweepFigures;
    count: number;
    layout: string;
    stored: ReturnType<typeof indexLayoutOf>;
    current: RepairState | null;
    after: string | null;
    refusedShards: Set<number>;
    now: Date;
    log?: Logger;
  },
): Promise<void> {
  const { figures, count, layout, stored, current, now } = input;
  if (input.finished) {
    const unvouched = await finishSweep(db, { count, now, refusedShards: input.refusedShards, log: input.log });
    await repairStateRef(db).set({
      layout,
      building: null,
      after: null,
      sweep: null,
      refusedShards: [],
      lastSweep: { ...figures, finishedAt: now, refusedShards: unvouched },
    });
    return;
  }
  await repairStateRef(db).set({
    layout: layoutOf(stored.shards),
    building: stored.building === null ? null : layout,
    after: input.after,
    sweep: figures,
    refusedShards: [...input.refusedShards],
    lastSweep: current?.lastSweep ?? null,
  });
}

type Fixes = { fixed: number; refused: number; refusedShards: number[] };

/**
 * Writes each subscriber's entry from their document as read in a transaction (absent when they
 * are no longer active or no longer exist). A batch spans many shards, and one full shard refuses
 * the whole transaction: the batch is then fixed again shard by shard, so only that shard's
 * entries wait (recorded) and the rest are fixed.
 */
async function fixEntries(db: Firestore, uids: string[], count: number, log: Logger | undefined): Promise<Fixes> {
  const fixes: Fixes = { fixed: 0, refused: 0, refusedShards: [] };
  for (let i = 0; i < uids.length; i += FIXES_PER_BATCH) {
    const batch = uids.slice(i, i + FIXES_PER_BATCH);
    try {
      fixes.fixed += await fixBatch(db, batch, count);
      continue;
    } catch (error) {
      if (!isRefusedByLimits(error)) throw error;
    }
    const byShard = new Map<number, string[]>();
    for (const uid of batch) byShard.set(matchIndexShardOf(uid, count), [...(byShard.get(matchIndexShardOf(uid, count)) ?? []), uid]);
    for (const [k, ofShard] of byShard) {
      try {
        fixes.fixed += await fixBatch(db, ofShard, count);
      } catch (error) {
        if (!isRefusedByLimits(error)) throw error;
        fixes.refused += ofShard.length;
        fixes.refusedShards.push(k);
        await markShardRefused(db, { k, shards: count, by: 'sweep', error, log });
      }
    }
  }
  return fixes;
}

async function fixBatch(db: Firestore, uids: string[], count: number): Promise<number> {
  return db.runTransaction(async (tx) => {
    const snaps = await tx.getAll(...uids.map((uid) => db.collection(COLLECTIONS.subscribers).doc(uid)));
    const byShard = new Map<number, Record<string, IndexEntry | FieldValue>>();
    snaps.forEach((snap, i) => {
      const entry = entryForStored(uids[i], snap.data());
      const k = matchIndexShardOf(uids[i], count);
      if (!byShard.has(k)) byShard.set(k, {});
      byShard.get(k)![uids[i]] = entry === undefined ? FieldValue.delete() : entry;
    });
    for (const [k, profiles] of byShard) tx.set(matchIndexShardRef(db, k, count), { profiles }, { merge: true });
    return uids.length;
  });
}

/**
 * A complete sweep vouches for every shard of its layout that took all of its fixes (runs read the
 * index from now on) and retires the shards of any other layout, which nothing writes any more. A
 * shard that refused one, in the sweep or from a subscriber's write since (its `fullAt`, read
 * again now), is left without `builtAt`. Answers the shards left unvouched.
 */
async function finishSweep(
  db: Firestore,
  input: { count: number; now: Date; refusedShards: Set<number>; log: Logger | undefined },
): Promise<number[]> {
  const { count } = input;
  const refs = allIndexShards(count).map((k) => matchIndexShardRef(db, k, count));
  const marked = new Set<number>();
  for (let i = 0; i < refs.length; i += SHARD_WRITES) {
    const snaps = await db.getAll(...refs.slice(i, i + SHARD_WRITES), { fieldMask: ['fullAt'] });
    snaps.forEach((snap, j) => snap.get('fullAt') != null && marked.add(i + j));
  }
  const unvouched = allIndexShards(count).filter((k) => input.refusedShards.has(k) || marked.has(k));
  const vouched = refs.filter((_, k) => !unvouched.includes(k));
  const refused = await writeShards(vouched, { builtAt: input.now, fullAt: FieldValue.delete() });
  for (const ref of refused) {
    const k = Number(ref.id.split('-of-')[0]);
    unvouched.push(k);
    await markShardRefused(db, { k, shards: count, by: 'sweep', error: 'refused builtAt', log: input.log });
  }
  const current = new Set(allIndexShards(count).map((k) => matchIndexShardId(k, count)));
  const listed = await matchIndexCollection(db).select().get();
  await writeShards(
    listed.docs.filter((doc) => !current.has(doc.id)).map((doc) => doc.ref),
    null,
  );
  return unvouched.sort((a, b) => a - b);
}

/**
 * Merges `fields` into (or, for null, deletes) each shard, in batches; a batch refused by a limit is
 * written again one shard at a time. Answers the shards that refused.
 */
async function writeShards(refs: DocumentReference[], fields: Record<string, unknown> | null): Promise<DocumentReference[]> {
  const write = (batch: WriteBatch, ref: DocumentReference) => (fields ? batch.set(ref, fields, { merge: true }) : batch.delete(ref));
  const refused: DocumentReference[] = [];
  for (let i = 0; i < refs.length; i += SHARD_WRITES) {
    const part = refs.slice(i, i + SHARD_WRITES);
    const batch = part[0]?.firestore.batch();
    if (!batch) continue;
    part.forEach((ref) => write(batch, ref));
    try {
      await batch.commit();
      continue;
    } catch (error) {
      if (!isRefusedByLimits(error)) throw error;
    }
    for (const ref of part) {
      const one = ref.firestore.batch();
      write(one, ref);
      await one.commit().catch((error: unknown) => {
        if (!isRefusedByLimits(error)) throw error;
        refused.push(ref);
      });
    }
  }
  return refused;
}
