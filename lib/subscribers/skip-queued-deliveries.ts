import type { Firestore } from 'firebase-admin/firestore';
import { deliveriesCollection, readPages, writeDeliveries } from '../ledger/delivery';
import { isLostRace } from '../ledger/firestore-errors';
import { commitGroups } from '../ledger/write-groups';

/** Passes over a subscriber's pages before we leave what keeps moving to the send-time checks. */
const MAX_PASSES = 5;

/**
 * Closes a subscriber's `queued` deliveries as `skipped` so that an opt-out can never be undone by
 * an old item. Each page write is guarded by the version we read: a page a claim or a digest
 * changed in the meantime is read again. Items a digest already took (`sending`) are left to the
 * dispatcher, whose own check before the send skips them. Returns how many items this call closed.
 */
export async function skipQueuedDeliveries(db: Firestore, input: { uid: string; reason: string }): Promise<number> {
  let skipped = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const due = await deliveriesCollection(db).where('uid', '==', input.uid).where('pendingDigest', '>', '').select().get();
    if (due.empty) break;
    const pages = [
      ...(
        await readPages(
          db,
          due.docs.map((d) => d.id),
        )
      ).values(),
    ];
    const closing = pages.map((read) =>
      Object.values(read.page?.deliveries ?? {})
        .filter((d) => d.status === 'queued')
        .map((d) => ({ ...d, status: 'skipped' as const, reason: input.reason })),
    );
    const committed = await commitGroups(
      db,
      pages.map((read, i) => ({
        size: 1,
        apply: (batch) =>
          writeDeliveries(batch, db, read, { uid: input.uid, day: read.page!.day, changed: closing[i], expireAt: read.page!.expireAt }),
      })),
      isLostRace,
    );
    committed.forEach((ok, i) => (skipped += ok ? closing[i].length : 0));
    if (committed.every(Boolean)) break;
  }
  return skipped;
}
