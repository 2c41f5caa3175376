import type { Firestore } from 'firebase-admin/firestore';
import { digestEmailKey, outboxCollection, type OutboxRow, type OutboxStatus } from '../outbox/outbox-row';
import { readMany } from '../store/create-documents';
import { deliveryId, type Delivery } from '../ledger/delivery';
import { periodsFrom } from '../subscribers/digest-schedule';

/** What happened to a delivery, as its subscriber would see it. */
export type DeliveryOutcome = {
  uid: string;
  jobId: string;
  mode: Delivery['mode'];
  status: 'queued' | 'sending' | 'sent' | 'failed' | 'skipped';
  reason: string | null;
  emailKey: string | null;
  runId: string;
};

const FROM_ROW: Record<OutboxStatus, 'sending' | 'sent' | 'failed' | 'skipped'> = {
  held: 'sending',
  pending: 'sending',
  sending: 'sending',
  sent: 'sent',
  failed: 'failed',
  dead: 'failed',
  skipped: 'skipped',
};

/** Days after an item's digest period whose digest may list it (a flush that ran late, a leftover, a change of cadence). */
const DIGEST_DAYS_LOOKED_AT = 7;

/**
 * A delivery handed to an email shares that email's fate until it is marked: an instant
 * delivery is `sending` for good, bound to its alert's row; a queued item a digest row lists stays
 * `queued` until that row is final. This joins them back for whoever asks (the ops page, the CLI,
 * tests), with one getAll for the rows. A `sending` delivery whose row is gone (deleted by hand;
 * the TTL expires both together) reads as failed: it can never be sent, because sends come only
 * from rows.
 */
export async function readDeliveryOutcomes(db: Firestore, deliveries: Delivery[]): Promise<DeliveryOutcome[]> {
  const lines = [...deliveries].sort((a, b) => a.uid.localeCompare(b.uid) || a.jobId.localeCompare(b.jobId));
  const keys = new Set<string>();
  for (const d of lines) {
    if (d.status === 'sending' && d.emailKey) keys.add(d.emailKey);
    if (d.status === 'queued' && d.digestDate)
      for (const period of periodsFrom(d.digestDate, DIGEST_DAYS_LOOKED_AT)) keys.add(digestEmailKey(d.uid, period));
  }
  const rows = await readMany(
    db,
    [...keys].map((key) => outboxCollection(db).doc(key)),
  );
  const rowByKey = new Map<string, OutboxRow>();
  const listedBy = new Map<string, string>();
  rows.forEach((snap) => {
    const row = snap.data();
    if (!row) return;
    rowByKey.set(snap.id, row);
    if (row.kind === 'digest') for (const id of row.deliveryIds) listedBy.set(id, snap.id);
  });
  return lines.map((d): DeliveryOutcome => {
    const base = { uid: d.uid, jobId: d.jobId, mode: d.mode, emailKey: d.emailKey, runId: d.runId };
    const listing = d.status === 'queued' ? listedBy.get(deliveryId(d.uid, d.jobId)) : undefined;
    if (d.status !== 'sending' && !listing) return { ...base, status: d.status, reason: d.reason };
    const emailKey = listing ?? d.emailKey;
    const row = emailKey ? rowByKey.get(emailKey) : undefined;
    if (!row) return { ...base, status: 'failed', reason: 'orphaned_without_outbox_row' };
    const status = FROM_ROW[row.status];
    return { ...base, emailKey, status, reason: status === 'failed' || status === 'skipped' ? row.lastError : null };
  });
}
