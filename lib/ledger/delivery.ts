import { FieldPath, type DocumentSnapshot, type Firestore, type FirestoreDataConverter } from 'firebase-admin/firestore';
import { readMany } from '../store/create-documents';
import type { DeliveryMode } from '../subscribers/subscriber';
import { toDate, toTimestamp, type Stored } from '../store/timestamps';
import { COLLECTIONS } from '../store/collections';

/**
 * deliveries/{uid}_{jobId}: the ledger line that says "this posting is this subscriber's", with
 * the verdict (score, reasons) that made it so. One document per pair, as the design card draws
 * it: nothing in it grows with the data, so no subscriber's busy day can push a document past
 * Firestore's 1 MiB or 40,000 index entries (test/store/production-limits.test.ts).
 *   instant: created `sending`, in one batch with its alert's outbox row (at-most-once);
 *            its outcome is that row's status (delivery-outcome.ts)
 *   daily:   created `queued`; a digest row lists it (the list is the claim), and once that row is
 *            final the item is marked `sent`, `failed` or `skipped` with it (settle-digest-items.ts)
 *   either:  `skipped` when closed without an email (opt-out, mode change, caps), with a reason
 * The id is the claim: a create() on it is the check that no other run has claimed the pair.
 */
export type DeliveryStatus = 'queued' | 'sending' | 'sent' | 'failed' | 'skipped';

export type Delivery = {
  uid: string;
  jobId: string;
  mode: DeliveryMode;
  status: DeliveryStatus;
  score: number;
  reasons: string[];
  /**
   * The AI verdict stage (docs/verdicts.md), null while it is off: the model's fit (0–100) and its
   * reason, or, when the stage is on and the model did not decide, why (`aiFallback`: a fault, the
   * budget…), in which case keywords decided. Absent (never written) while the stage is off, so a
   * keyword-only delivery is byte for byte what it was; read back as null.
   */
  fit?: number | null;
  fitReason?: string | null;
  aiFallback?: string | null;
  /** The email that carries (or carried) it: the alert's row from the claim, the digest's once settled. */
  emailKey: string | null;
  /**
   * daily / weekly only: the period of the digest it was queued for, as the digest key names it —
   * the subscriber's local date (`2026-12-02`) or ISO week (`2026-W49`). Names its near-miss document.
   */
  digestDate: string | null;
  /**
   * daily / weekly, while `queued`: when it is due, the slot of the next digest not yet claimed
   * (UTC). The flush's one indexed query finds what is due by it; a change of schedule and a
   * period claimed without it move it on.
   */
  digestDueAt?: Date | null;
  /**
   * daily / weekly, queued: the subscriber's bucket among SHARD_BUCKETS (shardBucketOf(uid),
   * lib/runtime/shard.ts), so a shard's flush asks for its own buckets' due items only. Set when the
   * item is queued and never changed (the uid does not change); items queued before it existed get
   * it from a migration (migrations/shard-bucket.ts). Absent on every other delivery.
   */
  shardBucket?: number;
  reason: string | null;
  runId: string;
  createdAt: Date;
  sentAt: Date | null;
  expireAt: Date;
};

/** The pair's id: also how outbox rows list the deliveries they carry. */
export const deliveryId = (uid: string, jobId: string) => `${uid}_${jobId}`;

export const deliveryConverter: FirestoreDataConverter<Delivery> = {
  toFirestore: ({ digestDueAt, shardBucket, ...d }) => ({
    ...d,
    createdAt: toTimestamp(d.createdAt as Date),
    sentAt: toTimestamp(d.sentAt as Date | null),
    // Only on what waits for a digest: every other delivery is as it was before schedules.
    ...(digestDueAt ? { digestDueAt: toTimestamp(digestDueAt as Date) } : {}),
    ...(typeof shardBucket === 'number' ? { shardBucket } : {}),
    expireAt: toTimestamp(d.expireAt as Date),
  }),
  fromFirestore: (snap) => {
    const d = snap.data() as Stored<Delivery>;
    return {
      uid: d.uid,
      jobId: d.jobId,
      mode: d.mode,
      status: d.status,
      score: d.score,
      reasons: d.reasons ?? [],
      fit: typeof d.fit === 'number' ? d.fit : null,
      fitReason: typeof d.fitReason === 'string' ? d.fitReason : null,
      aiFallback: typeof d.aiFallback === 'string' ? d.aiFallback : null,
      emailKey: d.emailKey ?? null,
      digestDate: d.digestDate ?? null,
      digestDueAt: toDate(d.digestDueAt),
      ...(typeof d.shardBucket === 'number' ? { shardBucket: d.shardBucket } : {}),
      reason: d.reason ?? null,
      runId: d.runId,
      createdAt: toDate(d.createdAt)!,
      sentAt: toDate(d.sentAt),
      expireAt: toDate(d.expireAt)!,
    };
  },
};

export const deliveriesCollection = (db: Firestore) => db.collection(COLLECTIONS.deliveries).withConverter(deliveryConverter);
export const deliveryRef = (db: Firestore, uid: string, jobId: string) => deliveriesCollection(db).doc(deliveryId(uid, jobId));

/** One page of the queued deliveries in id order, after the id `after`: the walk the queue's migrations resume from a checkpoint. */
export function queuedDeliveriesPage(db: Firestore, after: string | null, limit: number) {
  const query = deliveriesCollection(db).where('status', '==', 'queued').orderBy(FieldPath.documentId()).limit(limit);
  return (after ? query.startAfter(after) : query).get();
}

/** Which of these pairs already have a delivery: one getAll per batch of ids, never one get() per pair. */
export async function readDeliveries(db: Firestore, ids: string[]): Promise<Map<string, DocumentSnapshot<Delivery>>> {
  const unique = [...new Set(ids)];
  const snaps = await readMany(
    db,
    unique.map((id) => deliveriesCollection(db).doc(id)),
  );
  return new Map(unique.map((id, i) => [id, snaps[i]]));
}
