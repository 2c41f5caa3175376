import type { Firestore } from 'firebase-admin/firestore';
import type { OutboxRow, OutboxStatus } from './outbox-row';
import { deliveriesCollection, type DeliveryStatus } from '../ledger/delivery';
import { isLostPrecondition } from '../store/firestore-errors';
import { commitAtomicWrites } from '../store/atomic-writes';

/** A final row's status, as the items it listed take it; null while the row may still be sent. */
export function settledAs(status: OutboxStatus): Extract<DeliveryStatus, 'sent' | 'failed' | 'skipped'> | null {
  if (status === 'sent') return 'sent';
  if (status === 'failed' || status === 'dead') return 'failed';
  if (status === 'skipped') return 'skipped';
  return null;
}

/**
 * Marks the items a digest row listed with the row's outcome, once the row is final — "send,
 * then mark them sent", as the design card says. At-least-once: the marks follow the row's own
 * write, and a crash between the two leaves the items `queued`; the next flush finds them listed
 * by a final row and marks them then, and never offers them to another digest. Unguarded on
 * purpose: the row's outcome is the truth (an item an opt-out closed while its digest was already
 * on its way was still sent). An item that is gone (pruned) is passed over.
 */
export async function settleDigestItems(
  db: Firestore,
  rows: { emailKey: string; row: Pick<OutboxRow, 'status' | 'sentAt' | 'lastError'>; deliveryIds: string[] }[],
): Promise<number> {
  const marks = rows.flatMap(({ emailKey, row, deliveryIds }) => {
    const status = settledAs(row.status);
    if (!status) return [];
    const fields = {
      status,
      emailKey,
      sentAt: status === 'sent' ? (row.sentAt ?? null) : null,
      reason: status === 'sent' ? null : (row.lastError ?? `digest_${row.status}`),
    };
    return deliveryIds.map((id) => ({ id, fields }));
  });
  if (marks.length === 0) return 0;
  const committed = await commitAtomicWrites(
    db,
    marks.map(({ id, fields }) => ({ size: 1, apply: (batch) => batch.update(deliveriesCollection(db).doc(id), fields) })),
    isLostPrecondition,
  );
  return committed.filter(Boolean).length;
}
