import { FieldPath, Timestamp, type Firestore, type Query, type QueryDocumentSnapshot } from 'firebase-admin/firestore';
import { isLostPrecondition } from '../store/firestore-errors';
import { commitAtomicWrites } from '../store/atomic-writes';
import { COLLECTIONS, type CollectionName } from '../store/collections';
import { fenceAt } from '../store/lease';

/**
 * For a store without a TTL policy (or to catch up before one): deletes ledger documents whose
 * `expireAt` has passed, at most `limit` per call. Conservative where a TTL would not be: an
 * outbox row still on its way (pending or sending), an email's or a channel message's, and a
 * delivery still queued for a digest are kept, so a prune can never lose a send that is still due; of `users`, only
 * unconfirmed signups go (an `expireAt` on anyone else is a stray, never a reason to delete them).
 *
 * The collections written at volume keep no index on `expireAt` (firestore.indexes.json: a
 * timestamp index would hold their writes to one key range, and TTL needs none), so no query can
 * ask them for what has expired: they are walked in document id order instead, `limit` documents
 * a call from where the last call stopped (`cursors/prune-{collection}`), deleting what has expired
 * among them; a walk that reaches the end starts over next time. The others are asked.
 */
export type PruneReport = { deleted: Record<string, number>; kept: Record<string, number>; more: boolean };

type Target = {
  collection: CollectionName;
  keep?: (data: FirebaseFirestore.DocumentData) => boolean;
  /** `expireAt` has no index here: walked by document id rather than asked. */
  walked?: boolean;
};

const TARGETS: Target[] = [
  { collection: COLLECTIONS.postings, walked: true },
  // A key past its window names no canonical any more (the store treats it as absent already).
  { collection: COLLECTIONS.postingKeys, walked: true },
  { collection: COLLECTIONS.deliveries, keep: (d) => d.status === 'queued', walked: true },
  { collection: COLLECTIONS.emails, keep: (d) => d.status === 'pending' || d.status === 'sending', walked: true },
  // The channels' outbox, like email's: a message still on its way is kept whatever its expireAt.
  { collection: COLLECTIONS.messages, keep: (d) => d.status === 'pending' || d.status === 'sending', walked: true },
  { collection: COLLECTIONS.runs, walked: true },
  { collection: COLLECTIONS.rateLimits },
  { collection: COLLECTIONS.subscribers, keep: (d) => d.status !== 'pending' || d.unsubscribedAt != null },
  { collection: COLLECTIONS.adminSessions },
  // A verdict past its retention is simply scored again if the pair comes back; a claim that old is long dead.
  { collection: COLLECTIONS.matches, walked: true },
  { collection: COLLECTIONS.aiUsage },
  { collection: COLLECTIONS.nearMisses, walked: true },
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
    const { expired, examined, done } = target.walked
      ? await walkExpired(db, target.collection, { now: input.now, limit })
      : await askExpired(db, target.collection, { now: input.now, limit });
    const doomed = expired.filter((d) => !target.keep?.(d.data()));
    report.kept[target.collection] = expired.length - doomed.length;
    // Each delete is guarded by the version read: a document written since (a delivery a digest
    // just marked) is left for a later prune instead of being deleted under its writer.
    const deleted = await commitAtomicWrites(
      db,
      doomed.map((doc) => ({ size: 1, apply: (batch) => void batch.delete(doc.ref, fenceAt(doc.updateTime)) })),
      isLostPrecondition,
    );
    report.deleted[target.collection] = deleted.filter(Boolean).length;
    budget -= examined;
    if (!done) report.more = true;
  }
  return report;
}

type Examined = { expired: QueryDocumentSnapshot[]; examined: number; done: boolean };

/** Where `expireAt` is indexed: the expired documents, `limit` at most. */
async function askExpired(db: Firestore, collection: CollectionName, input: { now: Date; limit: number }): Promise<Examined> {
  const query: Query = db.collection(collection).where('expireAt', '<=', input.now).limit(input.limit);
  const page = await query.get();
  return { expired: page.docs, examined: page.size, done: page.size < input.limit };
}

/** Where it is not: the next `limit` documents in id order from the collection's cursor, and those of them expired. */
async function walkExpired(db: Firestore, collection: CollectionName, input: { now: Date; limit: number }): Promise<Examined> {
  const cursor = db.collection(COLLECTIONS.cursors).doc(`prune-${collection}`);
  const after = (await cursor.get()).get('after') as string | null | undefined;
  const query = db.collection(collection).orderBy(FieldPath.documentId()).limit(input.limit);
  const page = await (after ? query.startAfter(after) : query).get();
  const done = page.size < input.limit;
  // Last writer wins between two prunes at once: either position is a fine place to go on from.
  await cursor.set({ after: done ? null : page.docs.at(-1)!.id, at: input.now });
  const expired = page.docs.filter((d) => {
    const expireAt = d.get('expireAt') as unknown;
    return expireAt instanceof Timestamp && expireAt.toMillis() <= input.now.getTime();
  });
  return { expired, examined: page.size, done };
}
