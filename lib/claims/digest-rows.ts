import { Timestamp, type Firestore } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../store/collections';
import { readMany } from '../store/create-documents';
import { toDate } from '../store/timestamps';
import type { Delivery } from '../ledger/delivery';
import { forInQueries } from '../ledger/in-query';
import { digestEmailKey, outboxCollection, type OutboxRow } from '../outbox/outbox-row';
import { digestPeriod, latestDigestSlot, nextDigestSlot, type DigestSchedule } from '../subscribers/digest-schedule';
import type { Subscriber } from '../subscribers/subscriber';

/**
 * How far before an item's creation a digest row that lists it may have been stamped: a row's
 * `createdAt` is its run's clock, taken when that run started, and a run that started before the
 * item was written can still list it. Runs last minutes; an hour is room for clocks that disagree.
 * The same hour bounds how long before a run's start a change it did not see can have been stamped.
 */
export const ROW_CLOCK_SLACK_MS = 3_600_000;
/** Periods a subscriber's rows are read by key before the flush asks the query instead (items due for many periods). */
const MAX_KEYED_PERIODS = 8;

/** A subscriber's due items, as the flush holds them. */
type DueItems = { uid: string; items: { delivery: Pick<Delivery, 'createdAt' | 'digestDueAt'> }[] };

/**
 * cursors/digest-hour: the DIGEST_HOUR_UTC every flush has run with since `since`. Subscribers who
 * chose no hour follow it, so a flush on another hour (a changed setting, two deployments at once)
 * claims other keys for them; each flush compares its hour with this record and, when they differ,
 * records its own from its start, before it claims anything. A flush that finds the record on its
 * own hour knows that every run since `since` claimed on that hour.
 */
const hourRecordRef = (db: Firestore) => db.collection(COLLECTIONS.cursors).doc('digest-hour');

/**
 * Since when the deployment's digest hour has been `hourUtc` (as far as the record knows): `now`
 * when the record is missing or names another hour, and then, unless this is a dry run, the
 * record is rewritten to say so. One read a flush, and a write only when the hour changed.
 */
export async function digestHourSince(db: Firestore, input: { hourUtc: number; now: Date; commit: boolean }): Promise<Date> {
  const record = (await hourRecordRef(db).get()).data();
  const since = toDate(record?.since);
  if (record?.hourUtc === input.hourUtc && since) return since;
  if (input.commit) await hourRecordRef(db).set({ hourUtc: input.hourUtc, since: Timestamp.fromDate(input.now) });
  return input.now;
}

/**
 * The digest rows that matter to these subscribers' due items: the row of the period this flush
 * would claim (its existence means that digest is taken), and every digest row that can list one
 * of their items. An item stays `queued` until the row that lists it is final, so such a row may
 * still hold it (not sent yet, or sent and its marks lost to a crash).
 *
 * Which rows can list an item follows from how a flush lists: only items due by its clock, under
 * the key of the period of its latest slot on the schedule it read. A subscriber's schedule is
 * known to be the one every run that can have listed their items read when
 *   - their `updatedAt` is older than their earliest item's creation by twice the slack: every
 *     write to a subscriber stamps it (a change of zone, hour, weekdays or cadence, and the save
 *     that then moves their queue), and a run that lists an item started at most the slack before
 *     the item was written (ROW_CLOCK_SLACK_MS), so each such run read the subscriber after the
 *     change and no such item was moved by it; and
 *   - on the deployment's hour (no hour of their own), the digest hour's record (digestHourSince)
 *     is older by the slack than the earliest run that can have listed one of their items: one
 *     that started no earlier than the item's due instant, nor than its creation minus the slack.
 * Then a row that lists an item due at `d` has the key of a period of one of that schedule's
 * slots, from the last one at `d` to now (plus the slack, for a run whose clock runs ahead):
 * usually one period, the very one this flush claims. Those rows are read by key, in the getAll
 * the claim's key needs anyway; nothing else is read for them.
 *
 * Any other subscriber (a recent change of any kind, no digest schedule, items due for many
 * periods) has the rows created since their earliest item found by a query on (uid, kind,
 * createdAt), one per 30 of them, so a change of zone or cadence between two digests hides no row.
 */
export async function readDigestRows(
  db: Firestore,
  due: DueItems[],
  input: {
    subscribers: (Subscriber | undefined)[];
    schedules: (DigestSchedule | null)[];
    /** The period this flush would claim for each, or null when it claims none. */
    periods: (string | null)[];
    now: Date;
    hourSince: Date;
  },
): Promise<Map<string, OutboxRow | undefined>> {
  const keys = new Set<string>();
  const asked: DueItems[] = [];
  const periodsOf = slotPeriods(new Date(input.now.getTime() + ROW_CLOCK_SLACK_MS));
  due.forEach((d, i) => {
    const period = input.periods[i];
    if (period) keys.add(digestEmailKey(d.uid, period));
    const keyed = keyedPeriods(d, input.subscribers[i], input.schedules[i], input.hourSince, periodsOf);
    if (keyed) for (const p of keyed) keys.add(digestEmailKey(d.uid, p));
    else asked.push(d);
  });
  const byKey = [...keys];
  const [claimed, ...recent] = await Promise.all([
    readMany(
      db,
      byKey.map((key) => outboxCollection(db).doc(key)),
    ),
    ...forInQueries(asked).map((batch) => {
      const earliest = Math.min(...batch.flatMap((d) => d.items.map((i) => i.delivery.createdAt.getTime())));
      return outboxCollection(db)
        .where(
          'uid',
          'in',
          batch.map((d) => d.uid),
        )
        .where('kind', '==', 'digest')
        .where('createdAt', '>=', Timestamp.fromMillis(earliest - ROW_CLOCK_SLACK_MS))
        .get();
    }),
  ]);
  const rows = new Map<string, OutboxRow | undefined>(byKey.map((key, i) => [key, claimed[i].exists ? claimed[i].data() : undefined]));
  for (const page of recent) for (const doc of page.docs) rows.set(doc.id, doc.data());
  return rows;
}

/**
 * The periods whose rows can list this subscriber's due items (see readDigestRows), or null when
 * the schedule may have changed since a run that can have listed them, or there are too many
 * periods: then the query decides.
 */
function keyedPeriods(
  due: DueItems,
  subscriber: Subscriber | undefined,
  schedule: DigestSchedule | null,
  hourSince: Date,
  periodsOf: (schedule: DigestSchedule, dueAt: Date) => string[],
): Set<string> | null {
  if (!subscriber || !schedule || due.items.length === 0) return null;
  const earliestItem = Math.min(...due.items.map(({ delivery }) => delivery.createdAt.getTime()));
  if (!(subscriber.updatedAt.getTime() < earliestItem - 2 * ROW_CLOCK_SLACK_MS)) return null;
  if (subscriber.digestHour === null) {
    const earliestRun = Math.min(
      ...due.items.map(({ delivery }) => Math.max(delivery.digestDueAt?.getTime() ?? 0, delivery.createdAt.getTime() - ROW_CLOCK_SLACK_MS)),
    );
    if (!(hourSince.getTime() < earliestRun - ROW_CLOCK_SLACK_MS)) return null;
  }
  const periods = new Set<string>();
  for (const { delivery } of due.items) {
    if (!delivery.digestDueAt) return null;
    for (const p of periodsOf(schedule, delivery.digestDueAt)) periods.add(p);
    if (periods.size > MAX_KEYED_PERIODS) return null;
  }
  return periods;
}

/**
 * For a schedule and a due instant: the periods of the latest slot at that instant and of every
 * slot after it up to `until`. Memoised per schedule and instant, since a subscriber batch's subscribers
 * mostly share both (each computation walks the calendar in the subscriber's zone).
 */
function slotPeriods(until: Date): (schedule: DigestSchedule, dueAt: Date) => string[] {
  const memo = new Map<string, string[]>();
  return (schedule, dueAt) => {
    const key = `${scheduleKey(schedule)}|${dueAt.getTime()}`;
    let periods = memo.get(key);
    if (!periods) {
      periods = [];
      for (
        let slot = latestDigestSlot(schedule, dueAt);
        slot.getTime() <= until.getTime() && periods.length <= MAX_KEYED_PERIODS;
        slot = nextDigestSlot(schedule, slot)
      )
        periods.push(digestPeriod(schedule, slot));
      memo.set(key, periods);
    }
    return periods;
  };
}

/** Equal for two schedules that put every slot at the same instant. */
export const scheduleKey = (s: DigestSchedule) => `${s.cadence}|${s.timezone}|${s.hour}|${s.weekdays.join()}|${s.weeklyDay}`;
