import { FieldPath, FieldValue, type DocumentSnapshot, type Firestore } from 'firebase-admin/firestore';
import { readMinPay } from '../pay/minimum-pay';
import { guardedSubscriberUpdate } from './subscriber-writes';
import { subscribersCollection } from './subscriber';

export type MinPayMigrationReport = {
  dryRun: boolean;
  /** Documents that held `minBudget` when read. */
  found: number;
  /** Documents this run rewrote (dry run: would rewrite). */
  changed: number;
};

/** users/ documents read per query. */
export const MIN_PAY_MIGRATION_BATCH_SIZE = 200;

/**
 * `scout users migrate-min-pay`: rewrites every subscriber that still holds the old single minimum,
 * `minBudget`, in the per-kind shape: `minPay.fixed` in USD — what `minBudget` was ever compared
 * with — and `minBudget` deleted. A document that already has `minPay` (written by the current
 * code) keeps it, and only loses the stale field.
 *
 * Nothing a subscriber receives changes: readers already take an unmigrated `minBudget` as the
 * fixed minimum (readMinPay), so the migration may run any time after the deploy, and
 * `profileVersion` is left as it is (the profile means what it meant; stored verdicts stand).
 *
 * Each document is rewritten by guardedSubscriberUpdate, so the write is guarded by the version
 * read (a concurrent save is decided again on the fresh version, never overwritten) and the
 * subscriber's match index entry is written in the same batch when it changes. It does not, for a
 * fixed minimum in USD: the index packs that exactly as it packed `minBudget` (match-index.ts).
 *
 * Idempotent: the walk is `orderBy('minBudget')`, which finds only documents that have the field
 * (null included), so a second run reads nothing and reports 0 changed.
 */
export async function migrateMinPay(
  db: Firestore,
  input: { dryRun: boolean; batchSize?: number; onProgress?: (report: MinPayMigrationReport) => unknown },
): Promise<MinPayMigrationReport> {
  const batchSize = input.batchSize ?? MIN_PAY_MIGRATION_BATCH_SIZE;
  const report: MinPayMigrationReport = { dryRun: input.dryRun, found: 0, changed: 0 };
  let after: DocumentSnapshot | null = null;
  for (;;) {
    let query = db.collection(subscribersCollection(db).path).orderBy('minBudget').orderBy(FieldPath.documentId()).limit(batchSize);
    if (after) query = query.startAfter(after);
    const snap = await query.get();
    if (snap.empty) break;
    for (const doc of snap.docs) {
      report.found += 1;
      if (input.dryRun) report.changed += 1;
      else if (await migrateOne(db, doc.id)) report.changed += 1;
    }
    after = snap.docs[snap.docs.length - 1];
    await input.onProgress?.({ ...report });
    if (snap.size < batchSize) break;
  }
  return report;
}

/** One subscriber, from a fresh read under the guard; false when it holds no `minBudget` any more. */
function migrateOne(db: Firestore, uid: string): Promise<boolean> {
  return guardedSubscriberUpdate<boolean>(
    subscribersCollection(db).doc(uid),
    (snap) => {
      // Raw fields: the converter reads `minBudget` into `minPay` and would hide it.
      if (!snap.exists || snap.get('minBudget') === undefined) return { done: false };
      const minPay = readMinPay({ minPay: snap.get('minPay') as unknown, minBudget: snap.get('minBudget') as unknown });
      // updatedAt is the subscriber's own last change; this is not one, so it stays.
      return { update: { minPay, minBudget: FieldValue.delete() }, result: true };
    },
    { action: 'migrating its minimum pay' },
  );
}
