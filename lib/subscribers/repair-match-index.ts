import { FieldPath, FieldValue, type Firestore } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../store/collections';
import { DAY_MS, toDate, type Stored } from '../store/timestamps';
import {
  entryForStored,
  MATCH_INDEX_SHARDS,
  matchIndexCollection,
  matchIndexShardId,
  matchIndexShardOf,
  matchIndexShardRef,
  readIndexShards,
  type IndexEntry,
} from './match-index';

/**
 * The repair sweep: walks users/ in id order, a few pages a run from where the last run stopped,
 * and compares each subscriber's match index entry with the one their document calls for. A
 * difference (drift: an entry missing, stale, or left behind by someone no longer active) is
 * fixed in a transaction that reads the subscriber again, so the fix is made from what is stored
 * now and is ordered with any writer of that subscriber.
 *
 * The first sweep of a layout (a new deployment, a new MATCH_INDEX_SHARDS) is the build: when it
 * reaches the end, it stamps `builtAt` on every shard and runs start reading the index instead of
 * users/. After that a sweep starts once every REPAIR_EVERY_MS, so checking costs about one read
 * per subscriber a day, against one per subscriber per run without the index.
 *
 * cursors/match-index-repair holds where the sweep is and what the last complete one found
 * (`scout status` shows it).
 */
export const MATCH_INDEX_REPAIR = 'match-index-repair';
export const REPAIR_EVERY_MS = DAY_MS;
const PAGE = 1_000;
const PAGES_PER_RUN = 5;
/** Subscribers fixed per transaction (each is one read, their shards one write each). */
const FIX_SLICE = 200;

export type SweepFigures = { startedAt: Date; checked: number; drift: number; fixed: number };
export type RepairState = {
  layout: string;
  /** The last subscriber id the sweep in progress has checked; null before its first page. */
  after: string | null;
  /** The sweep in progress, null when none is. */
  sweep: SweepFigures | null;
  lastSweep: (SweepFigures & { finishedAt: Date }) | null;
};

export type RepairResult = { ran: boolean; checked: number; drift: number; fixed: number; finished: boolean };

const stateRef = (db: Firestore) => db.collection(COLLECTIONS.cursors).doc(MATCH_INDEX_REPAIR);
const layoutOf = (count: number) => `${count} shards`;

/** cursors/match-index-repair as runRepair writes it: a RepairState with its instants as Timestamps. */
type StoredRepairState = Pick<RepairState, 'layout' | 'after'> & {
  sweep: Stored<SweepFigures> | null;
  lastSweep: Stored<SweepFigures & { finishedAt: Date }> | null;
};

export async function readRepairState(db: Firestore): Promise<RepairState | null> {
  const data = (await stateRef(db).get()).data() as StoredRepairState | undefined;
  if (!data) return null;
  const figures = (f: Stored<SweepFigures> | null | undefined): SweepFigures | null =>
    f ? { startedAt: toDate(f.startedAt) ?? new Date(0), checked: f.checked ?? 0, drift: f.drift ?? 0, fixed: f.fixed ?? 0 } : null;
  const last = figures(data.lastSweep);
  return {
    layout: data.layout ?? '',
    after: data.after ?? null,
    sweep: figures(data.sweep),
    lastSweep: last ? { ...last, finishedAt: toDate(data.lastSweep?.finishedAt) ?? new Date(0) } : null,
  };
}

/**
 * One run's share of the sweep: nothing (one read) while the last sweep of this layout is recent,
 * otherwise up to PAGES_PER_RUN pages of subscribers, stopping early when `outOfTime` says so.
 */
export async function repairMatchIndex(
  db: Firestore,
  input: { now: Date; outOfTime?: () => boolean; pageSize?: number; pagesPerRun?: number; shards?: number },
): Promise<RepairResult> {
  const count = input.shards ?? MATCH_INDEX_SHARDS;
  const layout = layoutOf(count);
  const pageSize = input.pageSize ?? PAGE;
  const state = await readRepairState(db);
  const current = state?.layout === layout ? state : null;
  const recent = current?.lastSweep && input.now.getTime() - current.lastSweep.finishedAt.getTime() < REPAIR_EVERY_MS;
  if (!current?.sweep && recent) return { ran: false, checked: 0, drift: 0, fixed: 0, finished: false };

  const sweep: SweepFigures = current?.sweep ?? { startedAt: input.now, checked: 0, drift: 0, fixed: 0 };
  let after = current?.sweep ? current.after : null;
  const shards = await readIndexShards(
    db,
    Array.from({ length: count }, (_, k) => k),
    count,
  );
  const run = { checked: 0, drift: 0, fixed: 0 };
  let finished = false;
  for (let page = 0; page < (input.pagesPerRun ?? PAGES_PER_RUN) && !input.outOfTime?.(); page++) {
    let query = db.collection(COLLECTIONS.subscribers).orderBy(FieldPath.documentId()).limit(pageSize);
    if (after) query = query.startAfter(after);
    const snap = await query.get();
    finished = snap.size < pageSize;
    const last = finished ? null : snap.docs[snap.docs.length - 1].id;
    // Entries with an id in this page's range but no document in it belong to nobody: drift too.
    const inRange = (uid: string) => (after === null || uid > after) && (last === null || uid <= last);
    const wanted = new Map<string, IndexEntry | undefined>();
    for (const doc of snap.docs) wanted.set(doc.id, entryForStored(doc.id, doc.data()));
    const drifted: string[] = [];
    for (const [uid, want] of wanted) if (shards[matchIndexShardOf(uid, count)].profiles.get(uid) !== want) drifted.push(uid);
    for (const shard of shards) for (const uid of shard.profiles.keys()) if (inRange(uid) && !wanted.has(uid)) drifted.push(uid);
    run.checked += snap.size;
    run.drift += drifted.length;
    run.fixed += await fixEntries(db, drifted, count);
    after = last;
    if (finished) break;
  }
  const figures = { ...sweep, checked: sweep.checked + run.checked, drift: sweep.drift + run.drift, fixed: sweep.fixed + run.fixed };
  if (finished) {
    await finishSweep(db, count, input.now);
    await stateRef(db).set({ layout, after: null, sweep: null, lastSweep: { ...figures, finishedAt: input.now } });
  } else {
    await stateRef(db).set({ layout, after, sweep: figures, lastSweep: current?.lastSweep ?? null });
  }
  return { ran: true, ...run, finished };
}

/**
 * Writes each subscriber's entry from their document as read in a transaction (absent when they
 * are no longer active or no longer exist). Returns how many were written.
 */
async function fixEntries(db: Firestore, uids: string[], count: number): Promise<number> {
  let fixed = 0;
  for (let i = 0; i < uids.length; i += FIX_SLICE) {
    const slice = uids.slice(i, i + FIX_SLICE);
    fixed += await db.runTransaction(async (tx) => {
      const snaps = await tx.getAll(...slice.map((uid) => db.collection(COLLECTIONS.subscribers).doc(uid)));
      const byShard = new Map<number, Record<string, IndexEntry | FieldValue>>();
      snaps.forEach((snap, i) => {
        const entry = entryForStored(slice[i], snap.data());
        const k = matchIndexShardOf(slice[i], count);
        if (!byShard.has(k)) byShard.set(k, {});
        byShard.get(k)![slice[i]] = entry === undefined ? FieldValue.delete() : entry;
      });
      for (const [k, profiles] of byShard) tx.set(matchIndexShardRef(db, k, count), { profiles }, { merge: true });
      return slice.length;
    });
  }
  return fixed;
}

/**
 * A complete sweep vouches for every shard of its layout (runs read the index from now on) and
 * retires the shards of any other layout, which nothing writes any more.
 */
async function finishSweep(db: Firestore, count: number, now: Date): Promise<void> {
  const batch = db.batch();
  for (let k = 0; k < count; k++) batch.set(matchIndexShardRef(db, k, count), { builtAt: now }, { merge: true });
  const current = new Set(Array.from({ length: count }, (_, k) => matchIndexShardId(k, count)));
  const listed = await matchIndexCollection(db).select().get();
  for (const doc of listed.docs) if (!current.has(doc.id)) batch.delete(doc.ref);
  await batch.commit();
}
