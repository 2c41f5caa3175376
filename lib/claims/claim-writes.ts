import type { Firestore, WriteBatch } from 'firebase-admin/firestore';
import { createDeliveries, createDelivery } from '../ledger/create-deliveries';
import { recordNearMisses } from '../ledger/record-near-misses';
import type { RunSender, HandedRow, PackedSendBatch } from '../outbox/run-sender';
import { outboxCollection, payloadOf, type OutboxRow } from '../outbox/outbox-row';
import { DELIVERY_BYTES, payloadBytes, type AtomicWrite } from '../store/atomic-writes';
import type { ClaimPlan, PlannedAlert } from './claim-plan';

/** A subscriber's writes other than the alert: the deliveries created alone, then the digest's near misses. */
export function claimWrites(db: Firestore, plan: ClaimPlan, expireAt: Date): AtomicWrite[] {
  return [...createDeliveries(db, plan.creates), ...(plan.nearMisses ? [recordNearMisses(db, plan.nearMisses, expireAt)] : [])];
}

/** An alert planned for the subscriber at `subscriber` (its index among those claimed together). */
export type AlertOf = PlannedAlert & { subscriber: number };

export type AlertWrite = { write: AtomicWrite; subscribers: number[]; set: PackedSendBatch<HandedRow & AlertOf> | null };

/**
 * The alerts' write groups: each alert's deliveries with its row, all or nothing (at-most-once
 * starts with the row existing before any send). Handed to the run's sender, alerts are created
 * leased, several to a group — one sealed provider batch, created whole or not at all, so a set
 * that loses a race (a concurrent run claimed one of its pairs) re-plans all its subscribers.
 * With `holdOpenBatch`, a last set that is not full is not written: its subscribers come back in
 * `heldBack`, to be planned into the next wave's sets.
 */
export function alertWrites(
  db: Firestore,
  runSender: RunSender | null,
  alerts: AlertOf[],
  options: { holdOpenBatch: boolean },
): { groups: AlertWrite[]; heldBack: Set<number> } {
  const create = (batch: WriteBatch, alert: PlannedAlert, row: OutboxRow) => {
    for (const d of alert.sending) createDelivery(batch, db, d);
    batch.create(outboxCollection(db).doc(alert.emailKey), row);
  };
  const bytesOf = (alert: PlannedAlert) => alert.sending.length * DELIVERY_BYTES + payloadBytes(payloadOf(alert.row));
  if (!runSender)
    return {
      groups: alerts.map((alert) => ({
        write: { size: alert.sending.length + 1, bytes: bytesOf(alert), apply: (batch) => create(batch, alert, alert.row) },
        subscribers: [alert.subscriber],
        set: null,
      })),
      heldBack: new Set(),
    };
  const sets = runSender.seal(alerts.map((alert) => ({ ...alert, writes: alert.sending.length + 1 })));
  const held = options.holdOpenBatch && sets.at(-1)?.open ? sets.pop()! : null;
  return {
    groups: sets.map((set) => ({
      write: {
        size: set.members.reduce((n, a) => n + a.writes, 0),
        bytes: set.members.reduce((n, a) => n + bytesOf(a), set.packBytes),
        apply: (batch) => set.members.forEach((alert) => create(batch, alert, set.stored(alert))),
      },
      subscribers: set.members.map((a) => a.subscriber),
      set,
    })),
    heldBack: new Set(held?.members.map((a) => a.subscriber) ?? []),
  };
}
