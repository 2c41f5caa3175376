import type { Firestore } from 'firebase-admin/firestore';
import type { SinkMessage } from '../../scripts/mail-sink/types';
import { hashPayload } from '../../lib/mail/email-payload';
import { deliveriesCollection, type Delivery } from '../../lib/ledger/delivery';
import { readDeliveryOutcomes } from '../../lib/ops/delivery-outcome';
import { PROVIDER_KEY_WINDOW_MS } from '../../lib/outbox/send-rules';
import { digestPeriod, latestDigestSlot, nextDigestSlot } from '../../lib/subscribers/digest-schedule';
import { digestScheduleOf, subscribersCollection, type Subscriber } from '../../lib/subscribers/subscriber';

/** docs/design.md §2.9: what a queue checker counts, per kind of email. */
export type KindCounts = {
  attempted: number;
  accepted: number;
  received: number;
  lost: number;
  duplicated: number;
  /**
   * Digests received again because their last send came after the provider's key window
   * (PROVIDER_KEY_WINDOW_MS from the first attempt): at-least-once outside the window is what
   * docs/design.md §2.4 and §2.9 promise, so these are counted apart from `duplicated`, never in it.
   */
  pastKeyWindow: number;
  unexpected: number;
  recovered: number;
  visibleFailures: number;
};
export type CheckReport = {
  alert: KindCounts;
  digest: KindCounts;
  stuck: string[];
  duplicatePostings: string[];
  /** Scheduled digest rows claimed for a period other than the one the subscriber's latest slot was in (before its hour, or a stale one). */
  offSchedule: string[];
};

const empty = (): KindCounts => ({
  attempted: 0,
  accepted: 0,
  received: 0,
  lost: 0,
  duplicated: 0,
  pastKeyWindow: 0,
  unexpected: 0,
  recovered: 0,
  visibleFailures: 0,
});
const FINAL_ROWS = new Set(['sent', 'failed', 'dead', 'skipped']);

/**
 * Compares what the ledger says was due with what the mail sink actually received:
 * - lost: due and never received, without a visible failed/dead state — an email the ledger says
 *   was sent and the inbox lacks; and for digests, each queued item whose digest was due by its
 *   subscriber's own schedule (see `digestDueBy`) before the last run and never claimed;
 * - duplicated: the same email (key) received twice, or one posting reaching a subscriber twice;
 *   except a digest whose last send came past the provider's key window (pastKeyWindow);
 * - unexpected: received though no outbox row asked for it, or a scheduled digest claimed off its
 *   subscriber's schedule (before the local hour, on a day it does not go out, for a period not
 *   the latest) — listed in `offSchedule`;
 * - recovered: sent after more than one attempt (a crash, a timeout, a 5xx or a 429 on the way);
 * - stuck: anything not in a final state after the settle runs (overdue queued items included).
 *
 * `lastRun` is the clock of the last run the test made: a queued item due after it may stay queued.
 */
export async function checkDeliveries(
  db: Firestore,
  received: SinkMessage[],
  input: { lastRun: Date; digestHourUtc: number },
): Promise<CheckReport> {
  const report: CheckReport = { alert: empty(), digest: empty(), stuck: [], duplicatePostings: [], offSchedule: [] };
  const subscribers = new Map((await subscribersCollection(db).get()).docs.map((d) => [d.id, d.data()]));
  const rows = await db.collection('emails').get();
  // A message is matched to its outbox row by content: the hash of what arrived against the hash
  // the row keeps of what it sent (a final row keeps no payload). Single sends carry the email key,
  // but a batch carries the batch key, so the key alone cannot tell.
  const identity = (m: SinkMessage) =>
    hashPayload({ from: m.from, to: m.to.join(','), subject: m.subject, html: m.html ?? '', text: m.text ?? '', headers: m.headers });
  const byIdentity = new Map<string, SinkMessage[]>();
  for (const message of received) {
    const id = identity(message);
    byIdentity.set(id, [...(byIdentity.get(id) ?? []), message]);
  }
  const rowIdentity = new Map(rows.docs.map((d) => [d.id, d.get('payloadHash') as string]));
  const known = new Set(rowIdentity.values());
  for (const [id, messages] of byIdentity) {
    if (!known.has(id)) {
      const kind = /^\d+ in your digest: /.test(messages[0].subject) ? 'digest' : 'alert';
      report[kind].unexpected += messages.length;
    }
  }
  // Rows whose copies are the window's allowance: their later copies carry no posting a second time.
  const resentPastWindow = new Set<string>();
  for (const doc of rows.docs) {
    const kind = doc.get('kind') as 'alert' | 'digest';
    const counts = report[kind];
    const status = doc.get('status') as string;
    const got = byIdentity.get(rowIdentity.get(doc.id)!)?.length ?? 0;
    counts.attempted += 1;
    counts.received += Math.min(got, 1);
    if (got > 1 && kind === 'digest' && sentPastKeyWindow(doc)) {
      counts.pastKeyWindow += got - 1;
      resentPastWindow.add(rowIdentity.get(doc.id)!);
    } else if (got > 1) counts.duplicated += got - 1;
    if (status === 'sent') {
      counts.accepted += 1;
      if (got === 0) counts.lost += 1; // the ledger says sent, the inbox disagrees
      if ((doc.get('attempts') ?? 0) > 1) counts.recovered += 1;
    } else if (status === 'failed' || status === 'dead') {
      counts.visibleFailures += 1;
    }
    if (!FINAL_ROWS.has(status)) report.stuck.push(`emails/${doc.id} is ${status}`);
    if (kind === 'digest') {
      const claimedAt = doc.get('createdAt')?.toDate() as Date;
      const offBy = offSchedule(doc.id, doc.get('uid'), claimedAt, subscribers.get(doc.get('uid')), input.digestHourUtc);
      if (offBy) {
        report.offSchedule.push(offBy);
        counts.unexpected += 1;
      }
    }
  }

  // One posting must never reach a subscriber twice, whichever emails carried it.
  const seen = new Set<string>();
  const copies = new Set<string>();
  for (const message of received) {
    const id = identity(message);
    if (resentPastWindow.has(id) && copies.has(id)) continue;
    copies.add(id);
    const titles = (message.text ?? '').split('\n').filter((l) => l.startsWith('* '));
    for (const title of titles) {
      const id = `${message.to.join(',')}|${title}`;
      if (seen.has(id)) report.duplicatePostings.push(id);
      seen.add(id);
    }
  }

  const deliveries = (await deliveriesCollection(db).get()).docs.map((d) => d.data());
  const outcomes = await readDeliveryOutcomes(db, deliveries);
  const byId = new Map(deliveries.map((d) => [`${d.uid}_${d.jobId}`, d]));
  for (const o of outcomes) {
    if (o.status === 'sending') report.stuck.push(`deliveries/${o.uid}_${o.jobId} is sending`);
    if (o.status !== 'queued') continue;
    const delivery = byId.get(`${o.uid}_${o.jobId}`)!;
    const dueBy = digestDueBy(delivery, subscribers.get(o.uid), input.digestHourUtc);
    if (dueBy.getTime() > input.lastRun.getTime()) continue;
    // Still queued is listed by no digest row (delivery-outcome.ts): due, and no digest took it.
    report.stuck.push(`deliveries/${o.uid}_${o.jobId} is queued, due by ${dueBy.toISOString()}`);
    report.digest.lost += 1;
  }
  // A digest that was due but whose row ended dead is a visible failure; one with no row at all would be lost.
  return report;
}

/** Sent (by the ledger's clock) more than the provider's key window after its first attempt. */
function sentPastKeyWindow(doc: FirebaseFirestore.QueryDocumentSnapshot): boolean {
  const first = doc.get('firstAttemptAt')?.toMillis() as number | undefined;
  const sent = doc.get('sentAt')?.toMillis() as number | undefined;
  return first !== undefined && sent !== undefined && sent - first > PROVIDER_KEY_WINDOW_MS;
}

/**
 * When a queued item must have gone into a digest, by its subscriber's own schedule: the first
 * slot after the run that queued it. Before that slot the item joins the digest of the period
 * then current if its slot has passed and nobody claimed it (a catch-up), or waits for the slot;
 * a digest claimed by a run racing the one that queued it sends without it, and it waits for the
 * slot too. A run at or after that slot must claim it. The slot math is digest-schedule.ts's,
 * which its own tests pin to instants written out by hand. A subscriber without a digest schedule
 * now (deleted, paused, switched to instant or feed) has the item closed at its stored due time.
 */
export function digestDueBy(delivery: Delivery, subscriber: Subscriber | undefined, digestHourUtc: number): Date {
  const schedule = subscriber?.status === 'active' ? digestScheduleOf(subscriber, digestHourUtc) : null;
  if (!schedule) return delivery.digestDueAt ?? delivery.createdAt;
  return nextDigestSlot(schedule, delivery.createdAt);
}

/**
 * A scheduled digest row claimed at `claimedAt` must be for the period the subscriber's latest
 * slot at that instant falls in: never before their local hour, never on a day they do not get
 * one. Returns what is wrong, or null. Manual resends (`digest_{uid}_manual-…`) are not scheduled.
 */
function offSchedule(key: string, uid: string, claimedAt: Date, subscriber: Subscriber | undefined, digestHourUtc: number): string | null {
  const period = key.slice(`digest_${uid}_`.length);
  if (period.startsWith('manual-') || !subscriber) return null;
  const schedule = digestScheduleOf(subscriber, digestHourUtc);
  if (!schedule) return null;
  const expected = digestPeriod(schedule, latestDigestSlot(schedule, claimedAt));
  return expected === period ? null : `emails/${key} claimed at ${claimedAt.toISOString()}, when the latest period was ${expected}`;
}
