import type { Firestore } from 'firebase-admin/firestore';
import { outboxCollection, type OutboxStatus } from '../outbox/outbox-row';
import { readMany } from './create-documents';
import type { Delivery } from './delivery';

/** What happened to a delivery, as a subscriber would see it. */
export type DeliveryOutcome =
  | { status: 'queued' | 'skipped'; reason: string | null }
  | { status: 'sending' | 'sent' | 'failed'; reason: string | null; emailKey: string };

const FROM_ROW: Record<OutboxStatus, 'sending' | 'sent' | 'failed' | 'skipped'> = {
  pending: 'sending',
  sending: 'sending',
  sent: 'sent',
  failed: 'failed',
  dead: 'failed',
  skipped: 'skipped',
};

/**
 * A delivery handed to an email shares that email's fate, so the send writes one outbox row
 * instead of one update per delivery it carried. This joins them back for whoever asks (the ops
 * page, the CLI, tests): one getAll for the rows. A delivery whose row is gone (deleted by hand;
 * the TTL expires both together) reads as failed — it can never be sent, because sends come only
 * from rows.
 */
export async function readDeliveryOutcomes(db: Firestore, deliveries: Delivery[]): Promise<DeliveryOutcome[]> {
  const keys = [...new Set(deliveries.flatMap((d) => (d.status === 'sending' && d.emailKey ? [d.emailKey] : [])))];
  const rows = await readMany(
    db,
    keys.map((key) => outboxCollection(db).doc(key)),
  );
  const rowByKey = new Map(keys.map((key, i) => [key, rows[i].data()]));
  return deliveries.map((d): DeliveryOutcome => {
    if (d.status !== 'sending') return { status: d.status, reason: d.reason };
    const emailKey = d.emailKey ?? '';
    const row = rowByKey.get(emailKey);
    if (!row) return { status: 'failed', reason: 'orphaned_without_outbox_row', emailKey };
    const status = FROM_ROW[row.status];
    if (status === 'skipped') return { status, reason: row.lastError };
    return { status, reason: status === 'failed' ? row.lastError : null, emailKey };
  });
}
