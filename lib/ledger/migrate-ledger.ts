import {
  FieldPath,
  type DocumentData,
  type DocumentReference,
  type Firestore,
  type Timestamp,
  type WriteBatch,
} from 'firebase-admin/firestore';
import { MAX_BATCH_WRITES, createDocuments, readMany } from '../store/create-documents';
import { deliveriesCollection, deliveryId, type Delivery } from './delivery';
import { isLostRace } from '../store/firestore-errors';
import { toDate } from '../store/timestamps';
import { commitAtomicWrites, DELIVERY_BYTES, type AtomicWrite } from '../store/atomic-writes';
import { guardedUpdate } from '../store/guarded-update';
import { COLLECTIONS } from '../store/collections';
import { shardBucketOf } from '../runtime/shard';
import { legacyDigestDueAt } from './migrations/digest-due';
import { fenceAt } from '../store/lease';

export type MigrationProgress = {
  /** Day documents migrated (dry run: that would be) and deleted, by this run. */
  dayDocuments: number;
  /** Per-pair documents created (dry run: that would be). */
  deliveries: number;
  /** Deliveries whose per-pair document already existed and was left as it is. */
  skippedExisting: number;
};

export type MigrationReport = MigrationProgress & {
  dryRun: boolean;
  /** The day document the run started after (the cursor of a run that stopped), null from the start. */
  resumedAfter: string | null;
  /** Day documents left in place because they do not read as a day document (no uid, no deliveries map): fix or delete them by hand. */
  unreadable: string[];
};

/** Named points where a test stops the migration as a crash would. */
export type MigrationFailpoint = (
  point: 'before-batch-commit' | 'before-day-document-delete' | 'before-cursor-save',
  dayDocumentId: string,
) => Promise<void>;

export const MIGRATION_CURSOR = 'migrate-ledger';
/** Ledger day documents read per query: a day document can be up to ~1 MiB, so this bounds memory too. */
export const MIGRATION_BATCH_SIZE = 50;
/** Pairs that fit beside their day document's delete in one batch. */
const PAIRS_PER_BATCH = MAX_BATCH_WRITES - 1;
/** Creates by this run are told apart by this runId; no delivery carries it, so a create that lost reads as someone else's. */
const MIGRATION_RUN_ID = 'migrate-ledger';

type DayDocument = { id: string; ref: DocumentReference; day: string; updateTime: Timestamp; pairs: Delivery[] };
type Cursor = { lastDayDocumentId: string | null; lastDay: string | null; doneAt: Date | null; totals: MigrationProgress };

/**
 * `scout migrate-ledger`: turns the day documents of the first ledger, `deliveries/{uid}_{day}` (one per
 * subscriber per posting day, its deliveries in a map keyed by job id), into the per-pair
 * documents `deliveries/{uid}_{jobId}` of the current one. Both live in the same collection (a
 * job id is `{source}_{hash}`, never a date, so the ids cannot collide); a day document is the document
 * that has a `day`.
 *
 * Each delivery is carried over as it was: status, score, reasons, email key, digest date, reason,
 * run id and createdAt, with `sentAt: null` and the day document's `expireAt`. A `sending` item stays
 * `sending` with its email key, digest items included: its outcome is its outbox row's
 * (delivery-outcome.ts), and that row already lists it by `deliveryId(uid, jobId)`.
 *
 * Idempotent and resumable because the ledger itself says what is done: a day document's pairs are
 * created and the day document deleted in one batch, so a day document still there is a day document not yet migrated,
 * and its pairs are create()d, never set(): a pair that exists (the current code claimed it, or an
 * earlier run created it) is left as it is. A day document too big for one batch gets its pairs in batches
 * first and is deleted last, so a run killed in between finds it again and creates only what is
 * missing. Every day document delete is guarded by the version read, so a day document an old instance changed
 * meanwhile is read again instead of being deleted with its change. (Only a day document past one batch
 * can then keep a pair created from the older version: run it with no old instance left.)
 *
 * The cursor (`cursors/migrate-ledger`) records progress for the operator and where the last run
 * stopped, so a resumed run starts there instead of walking over what it already deleted. It
 * ends with one walk from the start, which finds nothing unless a day document appeared behind the
 * cursor; only then is `doneAt` set. Correctness never depends on it.
 *
 * The walk is `orderBy('day')` (plus the document id, to resume at an exact day document): documents
 * without a `day` — the per-pair ones — are not in that index at all, so the walk reads day documents
 * only, however many pairs are already there, and Firestore's automatic single-field index on
 * `day` serves it: no composite index to deploy. (Ordering by document id alone would need no
 * index either, but would read every per-pair document too.)
 */
export async function migrateLedger(
  db: Firestore,
  input: {
    dryRun: boolean;
    now: Date;
    /**
     * DIGEST_HOUR_UTC: a queued pair is created with the due instant and shard bucket the flush's
     * query asks for. Without them, a migration run after the digest-due and shard-bucket migrations
     * would leave the pair where no query finds it. Default 8, the deployment's default hour.
     */
    digestHourUtc?: number;
    batchSize?: number;
    /** Told after each batch; awaited, so a caller may record it or stop the walk by throwing. */
    onProgress?: (progress: MigrationProgress) => unknown;
    failpoint?: MigrationFailpoint;
  },
): Promise<MigrationReport> {
  const batchSize = input.batchSize ?? MIGRATION_BATCH_SIZE;
  const digestHourUtc = input.digestHourUtc ?? 8;
  const failpoint = input.failpoint ?? (async () => {});
  const cursor = await readCursor(db);
  // A dry run deletes nothing, so a walk from a cursor and then from the start would count day documents twice.
  const resume =
    !input.dryRun && cursor && !cursor.doneAt && cursor.lastDayDocumentId ? { day: cursor.lastDay!, id: cursor.lastDayDocumentId } : null;
  const progress: MigrationProgress = { dayDocuments: 0, deliveries: 0, skippedExisting: 0 };
  const unreadable = new Set<string>();

  for (const start of resume ? [resume, null] : [null]) {
    let after = start;
    for (;;) {
      let query = db.collection(COLLECTIONS.deliveries).orderBy('day').orderBy(FieldPath.documentId()).limit(batchSize);
      if (after) query = query.startAfter(after.day, after.id);
      const snap = await query.get();
      if (snap.empty) break;
      const dayDocuments: DayDocument[] = [];
      for (const doc of snap.docs) {
        const dayDocument = readDayDocument(doc.ref, doc.data(), doc.updateTime, digestHourUtc);
        if (dayDocument) dayDocuments.push(dayDocument);
        else unreadable.add(doc.id);
      }
      const done = input.dryRun ? await countBatch(db, dayDocuments) : await migrateBatch(db, dayDocuments, failpoint, digestHourUtc);
      progress.dayDocuments += done.dayDocuments;
      progress.deliveries += done.deliveries;
      progress.skippedExisting += done.skippedExisting;
      const last = snap.docs[snap.docs.length - 1];
      after = { day: last.get('day') as string, id: last.id };
      if (!input.dryRun) {
        await failpoint('before-cursor-save', last.id);
        await saveCursor(
          db,
          { lastDayDocumentId: last.id, lastDay: after.day, doneAt: null, totals: add(cursor?.totals, progress) },
          input.now,
        );
      }
      await input.onProgress?.({ ...progress });
      if (snap.size < batchSize) break;
    }
  }

  // A second run over a migrated ledger writes nothing at all, the cursor included.
  if (!input.dryRun && (progress.dayDocuments > 0 || (cursor && !cursor.doneAt))) {
    await saveCursor(db, { lastDayDocumentId: null, lastDay: null, doneAt: input.now, totals: add(cursor?.totals, progress) }, input.now);
  }
  return { ...progress, dryRun: input.dryRun, resumedAfter: resume?.id ?? null, unreadable: [...unreadable].sort() };
}

/**
 * One old day document as the per-pair documents it becomes, or null when it does not read as a day document.
 * Read raw, not through a converter: the current code has no type for day documents any more.
 */
function readDayDocument(ref: DocumentReference, data: DocumentData, updateTime: Timestamp, digestHourUtc: number): DayDocument | null {
  const { uid, day, deliveries } = data;
  if (typeof uid !== 'string' || typeof day !== 'string' || typeof deliveries !== 'object' || deliveries === null) return null;
  const entries = Object.entries(deliveries as Record<string, unknown>);
  if (entries.some(([, d]) => typeof d !== 'object' || d === null)) return null;
  const expireAt = toDate(data.expireAt)!;
  const pairs = entries.map(([jobId, raw]): Delivery => {
    const d = raw as Record<string, unknown>;
    const createdAt = toDate(d.createdAt)!;
    const digestDate = (d.digestDate as string | undefined) ?? null;
    // Found by the flush's query like any item the claim queues today (lib/claims/flush-due-digests.ts).
    const queued =
      d.status === 'queued'
        ? { digestDueAt: legacyDigestDueAt(digestDate, createdAt, digestHourUtc), shardBucket: shardBucketOf(uid) }
        : {};
    return {
      uid,
      // The map key is the job id (the day document's own converter read it so); the copy inside may be absent.
      jobId,
      mode: d.mode as Delivery['mode'],
      status: d.status as Delivery['status'],
      score: d.score as number,
      reasons: (d.reasons as string[] | undefined) ?? [],
      emailKey: (d.emailKey as string | undefined) ?? null,
      digestDate,
      reason: (d.reason as string | undefined) ?? null,
      runId: d.runId as string,
      createdAt,
      sentAt: null,
      expireAt,
      ...queued,
    };
  });
  return { id: ref.id, ref, day, updateTime, pairs };
}

const pairRef = (db: Firestore, d: Delivery) => deliveriesCollection(db).doc(deliveryId(d.uid, d.jobId));

/**
 * Day documents that fit in one batch go out together, each as one atomic write (its creates and
 * its guarded delete); an atomic write that lost (a pair exists, the day document changed) and every bigger day document
 * are then migrated one at a time from a fresh read.
 */
async function migrateBatch(
  db: Firestore,
  dayDocuments: DayDocument[],
  failpoint: MigrationFailpoint,
  digestHourUtc: number,
): Promise<MigrationProgress> {
  const done: MigrationProgress = { dayDocuments: 0, deliveries: 0, skippedExisting: 0 };
  const small = dayDocuments.filter((p) => p.pairs.length <= PAIRS_PER_BATCH);
  if (dayDocuments.length > 0) await failpoint('before-batch-commit', dayDocuments[dayDocuments.length - 1].id);
  const committed = await commitAtomicWrites(
    db,
    small.map((dayDocument) => dayDocumentWrite(db, dayDocument, dayDocument.pairs)),
    isLostRace,
  );
  const left = [...small.filter((_, i) => !committed[i]), ...dayDocuments.filter((p) => p.pairs.length > PAIRS_PER_BATCH)];
  for (const dayDocument of small.filter((_, i) => committed[i])) {
    done.dayDocuments += 1;
    done.deliveries += dayDocument.pairs.length;
  }
  for (const dayDocument of left) {
    const one = await migrateDayDocument(db, dayDocument.ref, failpoint, digestHourUtc);
    done.dayDocuments += one.dayDocuments;
    done.deliveries += one.deliveries;
    done.skippedExisting += one.skippedExisting;
  }
  return done;
}

/** A day document's missing pairs and its delete, all or nothing; the delete only if the day document is still the version read. */
function dayDocumentWrite(db: Firestore, dayDocument: DayDocument, missing: Delivery[]): AtomicWrite {
  return {
    size: missing.length + 1,
    bytes: missing.length * DELIVERY_BYTES,
    apply(batch) {
      createPairs(db, batch, missing);
      batch.delete(dayDocument.ref, fenceAt(dayDocument.updateTime));
    },
  };
}

const createPairs = (db: Firestore, batch: WriteBatch, pairs: Delivery[]) => {
  for (const d of pairs) batch.create(pairRef(db, d), d);
};

/**
 * One day document from a fresh read: pairs that exist are left alone, the missing ones created (with the
 * delete in the same batch when they fit, in batches before it when not), the day document deleted if it
 * is still the version read. A day document gone meanwhile was migrated by someone else: nothing to do.
 * Counts are of this call's own creates, so an attempt that re-reads after its own batches does not
 * count them as found.
 */
async function migrateDayDocument(
  db: Firestore,
  ref: DocumentReference,
  failpoint: MigrationFailpoint,
  digestHourUtc: number,
): Promise<MigrationProgress> {
  const ours = new Set<string>();
  const migrated = await guardedUpdate<{ dayDocuments: number; pairs: Delivery[]; created: Delivery[] }>(
    ref,
    async (snap) => {
      if (!snap.exists) return { done: { dayDocuments: 0, pairs: [], created: [] } };
      const dayDocument = readDayDocument(ref, snap.data()!, snap.updateTime!, digestHourUtc);
      if (!dayDocument) throw new Error(`deliveries/${ref.id} no longer reads as a day document`);
      const existing = await readMany(
        db,
        dayDocument.pairs.map((d) => pairRef(db, d)),
      );
      const missing = dayDocument.pairs.filter((_, i) => !existing[i].exists);
      if (missing.length <= PAIRS_PER_BATCH) {
        // The missing pairs and the delete, all or nothing: a pair that exists by now loses the batch too.
        return {
          delete: true,
          alongside: (batch) => createPairs(db, batch, missing),
          result: { dayDocuments: 1, pairs: dayDocument.pairs, created: missing },
        };
      }
      // Too many for one batch: the pairs first (each create its own check), the day document last.
      const { created } = await createDocuments(
        db,
        missing.map((d) => ({ ref: pairRef(db, d), data: d })),
        MIGRATION_RUN_ID,
      );
      for (const { data: d } of created) ours.add(deliveryId(d.uid, d.jobId));
      await failpoint('before-day-document-delete', dayDocument.id);
      // Not deleted: the day document changed after it was read, and the next try reads it again.
      return { delete: true, result: { dayDocuments: 1, pairs: dayDocument.pairs, created: [] } };
    },
    { action: 'being migrated' },
  );
  for (const d of migrated.created) ours.add(deliveryId(d.uid, d.jobId));
  return {
    dayDocuments: migrated.dayDocuments,
    deliveries: ours.size,
    skippedExisting: migrated.pairs.filter((d) => !ours.has(deliveryId(d.uid, d.jobId))).length,
  };
}

/** The dry run's count: what a run would create and skip, from one read of the pairs per batch. */
async function countBatch(db: Firestore, dayDocuments: DayDocument[]): Promise<MigrationProgress> {
  const pairs = dayDocuments.flatMap((p) => p.pairs);
  const existing = await readMany(
    db,
    pairs.map((d) => pairRef(db, d)),
  );
  const skippedExisting = existing.filter((s) => s.exists).length;
  return { dayDocuments: dayDocuments.length, deliveries: pairs.length - skippedExisting, skippedExisting };
}

const cursorRef = (db: Firestore) => db.collection(COLLECTIONS.cursors).doc(MIGRATION_CURSOR);

async function readCursor(db: Firestore): Promise<Cursor | null> {
  const snap = await cursorRef(db).get();
  if (!snap.exists) return null;
  return {
    // `lastPageId` and `pages`: the names a cursor saved by an earlier Scout used for the same fields.
    lastDayDocumentId:
      (snap.get('lastDayDocumentId') as string | null | undefined) ?? (snap.get('lastPageId') as string | undefined) ?? null,
    lastDay: (snap.get('lastDay') as string | null | undefined) ?? null,
    doneAt: toDate(snap.get('doneAt')),
    totals: {
      dayDocuments: (snap.get('dayDocuments') as number | undefined) ?? (snap.get('pages') as number | undefined) ?? 0,
      deliveries: (snap.get('deliveries') as number | undefined) ?? 0,
      skippedExisting: (snap.get('skippedExisting') as number | undefined) ?? 0,
    },
  };
}

async function saveCursor(db: Firestore, cursor: Cursor, now: Date): Promise<void> {
  await cursorRef(db).set({
    lastDayDocumentId: cursor.lastDayDocumentId,
    lastDay: cursor.lastDay,
    ...cursor.totals,
    updatedAt: now,
    doneAt: cursor.doneAt,
  });
}

const add = (a: MigrationProgress | undefined, b: MigrationProgress): MigrationProgress => ({
  dayDocuments: (a?.dayDocuments ?? 0) + b.dayDocuments,
  deliveries: (a?.deliveries ?? 0) + b.deliveries,
  skippedExisting: (a?.skippedExisting ?? 0) + b.skippedExisting,
});
