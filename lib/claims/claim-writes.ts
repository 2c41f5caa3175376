import type { Firestore, WriteBatch } from 'firebase-admin/firestore';
import { createDeliveries, createDelivery } from '../ledger/create-deliveries';
import { recordNearMisses } from '../ledger/record-near-misses';
import type { RunSender, HandedRow, PackedSendBatch } from '../outbox/run-sender';
import { outboxCollection, payloadOf, type OutboxRow } from '../outbox/outbox-row';
import { DELIVERY_BYTES, payloadBytes, type AtomicWrite } from '../store/atomic-writes';
import type { ClaimPlan, PlannedAlert } from './claim-plan';
import { messagesCollection } from '../messages/message-row';
import type { PlannedMessage } from '../messages/plan-messages';

/** A message's create(), in the atomic write of what it carries. */
const createMessage = (batch: WriteBatch, db: Firestore, m: PlannedMessage) => batch.create(messagesCollection(db).doc(m.key), m.row);
const messageBytes = (messages: PlannedMessage[]) => messages.reduce((n, m) => n + (m.row.body?.length ?? 0) + 500, 0);

/**
 * A subscriber's writes other than the alert: a digest or feed subscriber's channel alert with the
 * deliveries it carries, the deliveries created alone, then the digest's near misses.
 */
export function claimWrites(db: Firestore, plan: ClaimPlan, expireAt: Date): AtomicWrite[] {
  const channelAlert = plan.channelAlert;
  return [
    ...(channelAlert
      ? [
          {
            size: channelAlert.carried.length + channelAlert.messages.length,
            bytes: channelAlert.carried.length * DELIVERY_BYTES + messageBytes(channelAlert.messages),
            apply: (batch: WriteBatch) => {
              for (const d of channelAlert.carried) createDelivery(batch, db, d);
              for (const m of channelAlert.messages) createMessage(batch, db, m);
            },
          },
        ]
      : []),
    ...createDeliveries(db, plan.creates),
    ...(plan.nearMisses ? [recordNearMisses(db, plan.nearMisses, expireAt)] : []),
  ];
}

/** An alert planned for the subscriber at `subscriber` (its index among those claimed together). */
export type AlertOf = PlannedAlert & { subscriber: number };

export type AlertWrite = { write: AtomicWrite; subscribers: number[]; sendBatch: PackedSendBatch<HandedRow & AlertOf> | null };

/**
 * The alerts' atomic writes: each alert's deliveries with its row, all or nothing (at-most-once
 * starts with the row existing before any send). Handed to the run's sender, alerts are created
 * leased, several to an atomic write — one packed send batch, created whole or not at all, so a
 * send batch that loses a race (a concurrent run claimed one of its pairs) re-plans all its
 * subscribers. With `holdOpenBatch`, a last send batch that is not full is not written: its
 * subscribers come back in `heldBack`, to be planned into the next compose batch's send batches.
 */
export function alertWrites(
  db: Firestore,
  runSender: RunSender | null,
  alerts: AlertOf[],
  options: { holdOpenBatch: boolean },
): { atomicWrites: AlertWrite[]; heldBack: Set<number> } {
  const create = (batch: WriteBatch, alert: PlannedAlert, row: OutboxRow) => {
    for (const d of alert.sending) createDelivery(batch, db, d);
    batch.create(outboxCollection(db).doc(alert.emailKey), row);
    for (const m of alert.messages) createMessage(batch, db, m);
  };
  const bytesOf = (alert: PlannedAlert) =>
    alert.sending.length * DELIVERY_BYTES + payloadBytes(payloadOf(alert.row)) + messageBytes(alert.messages);
  if (!runSender)
    return {
      atomicWrites: alerts.map((alert) => ({
        write: {
          size: alert.sending.length + 1 + alert.messages.length,
          bytes: bytesOf(alert),
          apply: (batch) => create(batch, alert, alert.row),
        },
        subscribers: [alert.subscriber],
        sendBatch: null,
      })),
      heldBack: new Set(),
    };
  const sendBatches = runSender.pack(alerts.map((alert) => ({ ...alert, writes: alert.sending.length + 1 + alert.messages.length })));
  const held = options.holdOpenBatch && sendBatches.at(-1)?.open ? sendBatches.pop()! : null;
  return {
    atomicWrites: sendBatches.map((sendBatch) => ({
      write: {
        size: sendBatch.members.reduce((n, a) => n + a.writes, 0),
        bytes: sendBatch.members.reduce((n, a) => n + bytesOf(a), sendBatch.packBytes),
        apply: (batch) => sendBatch.members.forEach((alert) => create(batch, alert, sendBatch.stored(alert))),
      },
      subscribers: sendBatch.members.map((a) => a.subscriber),
      sendBatch,
    })),
    heldBack: new Set(held?.members.map((a) => a.subscriber) ?? []),
  };
}
