import type { Firestore, Query } from 'firebase-admin/firestore';
import { isLostPrecondition } from '../store/firestore-errors';
import { commitGroups } from '../store/write-groups';
import { COLLECTIONS, type CollectionName } from '../store/collections';

/**
 * For a store without a TTL policy (or to catch up before one): deletes ledger documents whose
 * `expireAt` has passed, at most `limit` per call. Conservative where a TTL would not be: an
 * outbox row still on its way (pending or sending) and a delivery still queued for a digest
 * are kept, so a prune can never lose an email that is still due; of `users`, only
 * unconfirmed signups go (an `expireAt` on anyone else is a stray, never a reason to delete them).
 */
export type PruneReport = { deleted: Record<string, number>; kept: Record<string, number>; more: boolean };

type Target = { collection: CollectionName; keep?: (data: FirebaseFirestore.DocumentData) => boolean };

const TARGETS: Target[] = [
  { collection: COLLECTIONS.postings },
  // A key past its window names no canonical any more (the store treats it as absent already).
  { collection: COLLECTIONS.postingKeys },
  { collection: COLLECTIONS.deliveries, keep: (d) => d.status === 'queued' },
  { collection: COLLECTIONS.emails, keep: (d) => d.status === 'pending' || d.status === 'sending' },
  { collection: COLLECTIONS.runs },
  { collection: COLLECTIONS.rateLimits },
  { collection: COLLECTIONS.subscribers, keep: (d) => d.status !== 'pending' || d.unsubscribedAt != null },
  { collection: COLLECTIONS.adminSessions },
  // A verdict past its retention is simply scored again if the pair comes back; a claim that old is long dead.
  { collection: COLLECTIONS.matches },
  { collection: COLLECTIONS.aiUsage },
  { collection: COLLECTIONS.nearMisses },
  // Feedback past its retention is no longer the subscriber's recent taste: nothing reads it for long.
  { collection: COLLECTIONS.feedback },
];

export async function pruneLedger(db: Firestore, input: { now: Date; limit: number }): Promise<PruneReport> {
  const report: PruneReport = { deleted: {}, kept: {}, more: false };
  let budget = input.limit;
  for (const target of TARGETS) {
    report.deleted[target.collection] = 0;
    report.kept[target.collection] = 0;
    if (budget <= 0) {
      report.more = true;
      continue;
    }
    const limit = budget;
    const query: Query = db.collection(target.collection).where('expireAt', '<=', input.now).limit(limit);
    const expired = await query.get();
    const doomed = expired.docs.filter((d) => !target.keep?.(d.data()));
    report.kept[target.collection] = expired.size - doomed.length;
    // Each delete is guarded by the version read: a document written since (a delivery a digest
    // just marked) is left for a later prune instead of being deleted under its writer.
    const deleted = await commitGroups(
      db,
      doomed.map((doc) => ({ size: 1, apply: (batch) => void batch.delete(doc.ref, { lastUpdateTime: doc.updateTime }) })),
      isLostPrecondition,
    );
    report.deleted[target.collection] = deleted.filter(Boolean).length;
    budget -= expired.size;
    if (expired.size === limit) report.more = true;
  }
  return report;
}
