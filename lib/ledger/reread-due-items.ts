import type { Firestore } from 'firebase-admin/firestore';
import { readDeliveries } from './delivery';
import { isDueAt, type Due } from './due-items';

/**
 * The items again, as they are now: those still queued and due. A subscriber with none left (the
 * run that won sent and marked them, or moved them to a later slot) drops out: nothing is due for
 * them, and an empty list has no earliest item to look for digest rows from.
 */
export async function rereadDueItems(db: Firestore, due: Due[], now: Date): Promise<Due[]> {
  const snaps = await readDeliveries(
    db,
    due.flatMap((d) => d.items.map((i) => i.id)),
  );
  return due
    .map((d) => ({
      uid: d.uid,
      items: d.items.flatMap((i) => {
        const snap = snaps.get(i.id)!;
        return snap.exists && isDueAt(snap.data()!, now) ? [{ id: i.id, delivery: snap.data()!, updateTime: snap.updateTime! }] : [];
      }),
    }))
    .filter((d) => d.items.length > 0);
}
