import type { Firestore } from 'firebase-admin/firestore';
import { readMany } from '../ledger/create-documents';
import { deliveriesCollection } from '../ledger/delivery';
import { outboxCollection } from './outbox-row';

/** A delivery is written in the same batch as its outbox row; one still `sending` this long after without a row is an orphan. */
const ORPHAN_AFTER_MS = 3_600_000;
const SWEEP_LIMIT = 500;

/**
 * The recovery sweep's second half (the first is the dispatcher picking up rows whose lease ran
 * out): a delivery stuck in `sending` whose outbox row is gone (pruned, deleted by hand) can never
 * be sent safely, so it is marked failed — visible, never silently resent.
 */
export async function sweepOrphanedDeliveries(db: Firestore, input: { now: Date }): Promise<number> {
  const cutoff = new Date(input.now.getTime() - ORPHAN_AFTER_MS);
  const stuck = await deliveriesCollection(db).where('status', '==', 'sending').where('createdAt', '<=', cutoff).limit(SWEEP_LIMIT).get();
  if (stuck.empty) return 0;
  const keys = stuck.docs.map((d) => d.get('emailKey') as string | null);
  const rows = await readMany(
    db,
    keys.map((key) => outboxCollection(db).doc(key ?? 'missing')),
  );
  const orphans = stuck.docs.filter((_, i) => !keys[i] || !rows[i].exists);
  for (let i = 0; i < orphans.length; i += 500) {
    const batch = db.batch();
    for (const doc of orphans.slice(i, i + 500)) batch.update(doc.ref, { status: 'failed', reason: 'orphaned_without_outbox_row' });
    await batch.commit();
  }
  return orphans.length;
}
