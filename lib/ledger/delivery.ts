import { FieldPath, type DocumentSnapshot, type Firestore, type FirestoreDataConverter, type WriteBatch } from 'firebase-admin/firestore';
import { readMany } from './create-documents';
import type { DeliveryMode } from '../subscribers/subscriber';
import { toDate, toTimestamp, utcDay } from './timestamps';

/**
 * A delivery is the ledger line that says "this posting is this subscriber's", with the verdict
 * (score, reasons) that made it so.
 *   instant: `sending` from its claim, in one batch with its alert's outbox row (at-most-once)
 *   daily:   `queued`; the digest claim moves it to `sending` with the digest's row
 *   either:  `skipped` when closed without an email (opt-out, mode change, caps)
 * Once `sending`, the delivery is bound to the outbox row `emailKey` and that row's status is its
 * outcome (delivery-outcome.ts): a send records one row, not every delivery it carried.
 */
export type DeliveryStatus = 'queued' | 'sending' | 'skipped';

export type Delivery = {
  jobId: string;
  mode: DeliveryMode;
  status: DeliveryStatus;
  score: number;
  reasons: string[];
  emailKey: string | null;
  /** daily only: the UTC day whose digest this item is due in. */
  digestDate: string | null;
  reason: string | null;
  runId: string;
  createdAt: Date;
};

/**
 * deliveries/{uid}_{day}: a page of one subscriber's deliveries, for the postings first stored on
 * that UTC day. Deliveries live on pages rather than one document each because Firestore bills
 * per document written: a cycle writes one page per matched subscriber, not one document per
 * pair. The day comes from the posting (its `fetchedAt`), never from the run, so two runs
 * claiming the same pair always meet on the same page, where a create() (new page) or an update
 * guarded by the page's lastUpdateTime (existing page) lets exactly one of them add it.
 * `pendingDigest` is the earliest digestDate among the page's queued deliveries (null when none):
 * what the daily flush and opt-outs query.
 */
export type DeliveryPage = {
  uid: string;
  day: string;
  deliveries: Record<string, Delivery>;
  pendingDigest: string | null;
  expireAt: Date;
};

/** The pair's id, as outbox rows list the deliveries they carry. */
export const deliveryId = (uid: string, jobId: string) => `${uid}_${jobId}`;
export const deliveryPageId = (uid: string, day: string) => `${uid}_${day}`;
/** The page a posting's deliveries go to: the day it was first stored, the same for every run. */
export const pageDayOf = (posting: { fetchedAt: Date }) => utcDay(posting.fetchedAt);

/** Field paths into one delivery on its page (job ids are data: never spliced into a dotted string). */
export const deliveryField = (jobId: string, field?: keyof Delivery) =>
  field ? new FieldPath('deliveries', jobId, field) : new FieldPath('deliveries', jobId);

/** The earliest digest day among queued deliveries: what `pendingDigest` says of a page. */
export function pendingDigestOf(deliveries: Iterable<Delivery>): string | null {
  let earliest: string | null = null;
  for (const d of deliveries) if (d.status === 'queued' && d.digestDate && (!earliest || d.digestDate < earliest)) earliest = d.digestDate;
  return earliest;
}

const deliveryToFirestore = (d: Delivery) => ({ ...d, createdAt: toTimestamp(d.createdAt) });
const deliveryFromFirestore = (jobId: string, d: Record<string, unknown>): Delivery => ({
  jobId,
  mode: d.mode as DeliveryMode,
  status: d.status as DeliveryStatus,
  score: d.score as number,
  reasons: (d.reasons as string[]) ?? [],
  emailKey: (d.emailKey as string) ?? null,
  digestDate: (d.digestDate as string) ?? null,
  reason: (d.reason as string) ?? null,
  runId: d.runId as string,
  createdAt: toDate(d.createdAt)!,
});
/** The stored form of one delivery, for updates that write it by field path (updates bypass converters). */
export const storedDelivery = deliveryToFirestore;

export const deliveryPageConverter: FirestoreDataConverter<DeliveryPage> = {
  toFirestore: (p) => ({
    uid: p.uid,
    day: p.day,
    deliveries: Object.fromEntries(Object.entries(p.deliveries as Record<string, Delivery>).map(([id, d]) => [id, deliveryToFirestore(d)])),
    pendingDigest: p.pendingDigest,
    expireAt: toTimestamp(p.expireAt as Date),
  }),
  fromFirestore: (snap) => {
    const d = snap.data();
    const raw = (d.deliveries ?? {}) as Record<string, Record<string, unknown>>;
    return {
      uid: d.uid,
      day: d.day,
      deliveries: Object.fromEntries(Object.entries(raw).map(([jobId, value]) => [jobId, deliveryFromFirestore(jobId, value)])),
      pendingDigest: d.pendingDigest ?? null,
      expireAt: toDate(d.expireAt)!,
    };
  },
};

export const deliveriesCollection = (db: Firestore) => db.collection('deliveries').withConverter(deliveryPageConverter);

/** A page as read, with the version an update must be guarded by; `exists: false` means a create(). */
export type ReadPage = { id: string; page: DeliveryPage | null; snap: DocumentSnapshot<DeliveryPage> };

export async function readPages(db: Firestore, ids: string[]): Promise<Map<string, ReadPage>> {
  const unique = [...new Set(ids)];
  const snaps = await readMany(
    db,
    unique.map((id) => deliveriesCollection(db).doc(id)),
  );
  return new Map(unique.map((id, i) => [id, { id, page: snaps[i].exists ? snaps[i].data()! : null, snap: snaps[i] }]));
}

/**
 * Adds or replaces deliveries on a page in one write: a create() when the page did not exist when
 * read, otherwise an update guarded by the lastUpdateTime read. Either way a concurrent writer
 * of the same page makes this write fail (ALREADY_EXISTS or FAILED_PRECONDITION) instead of
 * silently merging: the caller re-reads and re-plans.
 */
export function writeDeliveries(
  batch: WriteBatch,
  db: Firestore,
  read: ReadPage,
  input: { uid: string; day: string; changed: Delivery[]; expireAt: Date },
): void {
  const merged = { ...(read.page?.deliveries ?? {}), ...Object.fromEntries(input.changed.map((d) => [d.jobId, d])) };
  const pendingDigest = pendingDigestOf(Object.values(merged));
  const ref = deliveriesCollection(db).doc(read.id);
  if (!read.page) {
    batch.create(ref, { uid: input.uid, day: input.day, deliveries: merged, pendingDigest, expireAt: input.expireAt });
    return;
  }
  const expireAt = input.expireAt > read.page.expireAt ? input.expireAt : read.page.expireAt;
  const fields = input.changed.flatMap((d) => [deliveryField(d.jobId), storedDelivery(d)]);
  batch.update(ref, 'pendingDigest', pendingDigest, 'expireAt', expireAt, ...fields, { lastUpdateTime: read.snap.updateTime! });
}
