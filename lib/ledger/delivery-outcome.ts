import type { Firestore } from 'firebase-admin/firestore';
import { outboxCollection, type OutboxStatus } from '../outbox/outbox-row';
import { readMany } from './create-documents';
import type { Delivery, DeliveryPage } from './delivery';

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
 * page, the CLI, tests): every delivery on the pages, with its row's verdict, from one getAll for
 * the rows. A delivery whose row is gone (deleted by hand; the TTL expires both together) reads
 * as failed: it can never be sent, because sends come only from rows.
 */
export async function readDeliveryOutcomes(db: Firestore, pages: DeliveryPage[]): Promise<DeliveryOutcome[]> {
  const lines = pages.flatMap((page) => Object.values(page.deliveries).map((d) => ({ uid: page.uid, d })));
  lines.sort((a, b) => a.uid.localeCompare(b.uid) || a.d.jobId.localeCompare(b.d.jobId));
  const keys = [...new Set(lines.flatMap(({ d }) => (d.status === 'sending' && d.emailKey ? [d.emailKey] : [])))];
  const rows = await readMany(
    db,
    keys.map((key) => outboxCollection(db).doc(key)),
  );
  const rowByKey = new Map(keys.map((key, i) => [key, rows[i].data()]));
  return lines.map(({ uid, d }): DeliveryOutcome => {
    const base = { uid, jobId: d.jobId, mode: d.mode, emailKey: d.emailKey, runId: d.runId };
    if (d.status !== 'sending') return { ...base, status: d.status, reason: d.reason };
    const row = d.emailKey ? rowByKey.get(d.emailKey) : undefined;
    if (!row) return { ...base, status: 'failed', reason: 'orphaned_without_outbox_row' };
    const status = FROM_ROW[row.status];
    return { ...base, status, reason: status === 'failed' || status === 'skipped' ? row.lastError : null };
  });
}
