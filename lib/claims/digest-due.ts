import type { Firestore } from 'firebase-admin/firestore';
import { readMany } from '../store/create-documents';
import { digestEmailKey, outboxCollection } from '../outbox/outbox-row';
import { currentPeriod, dueSlotFor } from '../subscribers/digest-schedule';
import type { IndexedSubscriber } from '../subscribers/match-index';
import { digestScheduleOf } from '../subscribers/subscriber';
import type { DigestDue } from './claim-plan';

/**
 * For each digest subscriber among `subscribers`, where their items queued now are due. A
 * subscriber whose current period's slot has passed needs to know whether that period's digest is
 * claimed (its outbox row exists): one getAll for all of them; before the slot nothing is read.
 * A flush that claims it between this read and our write listed its items before ours existed:
 * ours stay due now, the next flush finds the period claimed and moves them to the next slot (a
 * row that does not list an item never holds it back: notYetListed, digest-plan.ts) — late by one
 * period in that race, never lost.
 */
export async function readDigestDue(
  db: Firestore,
  input: { subscribers: IndexedSubscriber[]; now: Date; digestHourUtc: number },
): Promise<Map<string, DigestDue>> {
  const scheduled = input.subscribers.flatMap((subscriber) => {
    const schedule = digestScheduleOf(subscriber, input.digestHourUtc);
    return schedule ? [{ uid: subscriber.id, schedule, current: currentPeriod(schedule, input.now) }] : [];
  });
  const asking = scheduled.filter((s) => s.current.slotPassed);
  const rows = await readMany(
    db,
    asking.map((s) => outboxCollection(db).doc(digestEmailKey(s.uid, s.current.period))),
  );
  const claimed = new Set(asking.filter((_, i) => rows[i].exists).map((s) => s.uid));
  return new Map(scheduled.map((s) => [s.uid, dueSlotFor(s.schedule, input.now, claimed.has(s.uid))]));
}
