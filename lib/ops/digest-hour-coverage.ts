import type { DocumentData, Firestore, Query } from 'firebase-admin/firestore';
import { isKnownTimeZone, nextDigestSlot, WEEKDAYS, type DigestSchedule } from '../subscribers/digest-schedule';
import { subscribersCollection } from '../subscribers/subscriber';
import { runsCollection } from '../ledger/runs';

/**
 * Are the subscribers' digest hours being served? A digest goes out at the first run at or after
 * its subscriber's local hour (digest-schedule.ts), so a scheduler that calls once a day (Vercel
 * Hobby) serves only the hours its call lands on, and every other subscriber gets their digest
 * up to a day late. This looks back over the last day: for each local hour some active digest
 * subscriber has, in each zone, the instant it fell on, and whether a run started within
 * SLOT_SERVED_WITHIN_MS after it.
 *
 * Bounded, however many subscribers there are. The (zone, hour) pairs are read like a DISTINCT:
 * for each of the 25 hour values (null — the deployment's DIGEST_HOUR_UTC — and 0–23), a query
 * ordered by zone takes one document, then starts after that zone, and so on: one read per pair
 * found plus one per hour, never one per subscriber. The 25 chains run at once, so the page waits
 * for the longest (zones at one hour + 1 round trips). At most ZONES_PER_HOUR zones are read for
 * an hour (then `truncated` says some were not checked): at most 25 × (ZONES_PER_HOUR + 1) reads.
 * Then one query (limit 1) per distinct slot instant asks runs/ whether a run started in its
 * window, and one count() per unserved pair listed (at most UNSERVED_LISTED) says how many
 * subscribers it holds. Weekdays and cadence are left out on purpose: a scheduler cannot tell
 * weekdays apart, so an hour it misses on one day it misses on theirs too.
 *
 * Other ways considered: a sample of N subscribers would miss the one subscriber at a rare hour;
 * a summary document kept by every writer of a subscriber (signup, confirm, preferences, the
 * CLI, the import, the operator's pause) would drift the day one writer forgets it, and would be
 * a hot document. A subscriber document written before schedules (no `timezone`) is not found by
 * the ordered query; it follows DIGEST_HOUR_UTC in UTC, the hour every scheduler is set up for.
 */

/** A run serves a slot when it starts at the slot or up to this long after it (an hourly scheduler, running late). */
export const SLOT_SERVED_WITHIN_MS = 60 * 60_000;
/** The look-back: the last day's slots. */
export const COVERAGE_LOOKBACK_MS = 24 * 3_600_000;
/** Zones read for one digest hour; beyond it, `truncated`. */
export const ZONES_PER_HOUR = 24;
/** Unserved (zone, hour) pairs listed and counted. */
export const UNSERVED_LISTED = 24;

/** null: the subscriber chose no hour and follows the deployment's DIGEST_HOUR_UTC (in their zone). */
const HOUR_VALUES: (number | null)[] = [null, ...Array.from({ length: 24 }, (_, h) => h)];
const DIGEST_MODES = ['daily', 'weekly'];

/** A (zone, hour) some active digest subscriber has. */
export type DigestHour = { timezone: string; digestHour: number | null };

/** One local hour in one zone whose slot in the last day had no run after it in time. */
export type UnservedHour = {
  timezone: string;
  /** The local hour (the deployment's default where the subscribers chose none). */
  hour: number;
  /** They chose no hour: theirs moves with DIGEST_HOUR_UTC. */
  followsDefault: boolean;
  /** The latest instant it fell on that no run served. */
  slot: Date;
  /** Active digest subscribers with this zone and hour (a count() aggregation); null past UNSERVED_LISTED. */
  subscribers: number | null;
};

export type DigestHourCoverage = {
  /** Distinct (zone, hour) pairs of active digest subscribers read. */
  hoursChecked: number;
  /** Some hour had more than ZONES_PER_HOUR zones: those past it were not checked. */
  truncated: boolean;
  /** Unserved hours, most recent slot first; at most UNSERVED_LISTED listed, `unservedTotal` counts them all. */
  unserved: UnservedHour[];
  unservedTotal: number;
  digestHourUtc: number;
};

/** The digest hours the ops page and `scout status` check, with the runs of the last day. */
export async function readDigestHourCoverage(
  db: Firestore,
  input: { now: Date; digestHourUtc: number; zonesPerHour?: number },
): Promise<DigestHourCoverage> {
  const { hours, truncated } = await readDigestHours(db, { zonesPerHour: input.zonesPerHour ?? ZONES_PER_HOUR });
  const slots = digestHourSlots(hours, input);
  const served = await readServedSlots(db, [...new Set(slots.map((s) => s.slot.getTime()))]);
  const unserved = unservedHours(slots, served);
  const listed = unserved.slice(0, UNSERVED_LISTED);
  const counts = await Promise.all(listed.map((u) => countSubscribersAt(db, u)));
  return {
    hoursChecked: hours.length,
    truncated,
    unserved: listed.map((u, i) => ({ ...u, subscribers: counts[i] })),
    unservedTotal: unserved.length,
    digestHourUtc: input.digestHourUtc,
  };
}

/** Active daily and weekly subscribers at one hour value, by zone: the index (status, mode, digestHour, timezone) serves it. */
function atHour(db: Firestore, digestHour: number | null): Query {
  return subscribersCollection(db)
    .withConverter<DocumentData>(null)
    .where('status', '==', 'active')
    .where('mode', 'in', DIGEST_MODES)
    .where('digestHour', '==', digestHour);
}

/** The distinct (zone, hour) pairs: per hour value, one document at a time, each query starting after the zone before. */
export async function readDigestHours(
  db: Firestore,
  input: { zonesPerHour: number },
): Promise<{ hours: DigestHour[]; truncated: boolean }> {
  const chains = await Promise.all(
    HOUR_VALUES.map(async (digestHour) => {
      const zones: string[] = [];
      const query = atHour(db, digestHour).orderBy('timezone').select('timezone').limit(1);
      for (;;) {
        const page = await (zones.length > 0 ? query.startAfter(zones.at(-1)) : query).get();
        if (page.empty) return { digestHour, zones, truncated: false };
        zones.push(page.docs[0].get('timezone') as string);
        if (zones.length >= input.zonesPerHour) {
          // One more read says whether anything was left out.
          const more = await query.startAfter(zones.at(-1)).get();
          return { digestHour, zones, truncated: !more.empty };
        }
      }
    }),
  );
  return {
    hours: chains.flatMap((c) => c.zones.map((timezone) => ({ timezone, digestHour: c.digestHour }))),
    truncated: chains.some((c) => c.truncated),
  };
}

/** A (zone, hour) and one instant it fell on; `localHour` is the hour itself, the default filled in. */
export type DigestHourSlot = { hour: DigestHour; localHour: number; slot: Date };

/**
 * Where each (zone, hour) fell in the last day: every local occurrence of that hour whose serving
 * window has closed, by the digest's own rules (an hour the clocks skip falls on the next moment
 * the clock reads it or later; a repeated one on its first occurrence).
 */
export function digestHourSlots(hours: DigestHour[], input: { now: Date; digestHourUtc: number }): DigestHourSlot[] {
  const since = input.now.getTime() - COVERAGE_LOOKBACK_MS;
  const until = input.now.getTime() - SLOT_SERVED_WITHIN_MS;
  // A zone the runtime does not know (written by hand, or dropped from its zone data) has no slots to check.
  return hours
    .filter((hour) => isKnownTimeZone(hour.timezone))
    .flatMap((hour) => {
      const schedule: DigestSchedule = {
        cadence: 'daily',
        timezone: hour.timezone,
        hour: hour.digestHour ?? input.digestHourUtc,
        weekdays: WEEKDAYS,
        weeklyDay: 'mon',
      };
      const slots: DigestHourSlot[] = [];
      for (let slot = nextDigestSlot(schedule, new Date(since - 1)); slot.getTime() <= until; slot = nextDigestSlot(schedule, slot))
        slots.push({ hour, localHour: schedule.hour, slot });
      return slots;
    });
}

/** The slot instants (ms) a run started within SLOT_SERVED_WITHIN_MS of: one query, limit 1, per instant. */
export async function readServedSlots(db: Firestore, slots: number[]): Promise<Set<number>> {
  const found = await Promise.all(
    slots.map(async (slot) => {
      const run = await runsCollection(db)
        .where('startedAt', '>=', new Date(slot))
        .where('startedAt', '<', new Date(slot + SLOT_SERVED_WITHIN_MS))
        .select('startedAt')
        .limit(1)
        .get();
      return run.empty ? null : slot;
    }),
  );
  return new Set(found.filter((slot) => slot !== null));
}

/** The (zone, hour) pairs with a slot no run served, by their latest such slot, newest first. */
export function unservedHours(slots: DigestHourSlot[], served: Set<number>): Omit<UnservedHour, 'subscribers'>[] {
  const latest = new Map<string, DigestHourSlot>();
  for (const s of slots) {
    if (served.has(s.slot.getTime())) continue;
    const key = `${s.hour.timezone} ${s.hour.digestHour}`;
    if ((latest.get(key)?.slot.getTime() ?? -1) < s.slot.getTime()) latest.set(key, s);
  }
  return [...latest.values()]
    .sort((a, b) => b.slot.getTime() - a.slot.getTime() || a.hour.timezone.localeCompare(b.hour.timezone))
    .map(({ hour, localHour, slot }) => ({ timezone: hour.timezone, hour: localHour, followsDefault: hour.digestHour === null, slot }));
}

async function countSubscribersAt(db: Firestore, hour: Omit<UnservedHour, 'subscribers'>): Promise<number> {
  const snap = await atHour(db, hour.followsDefault ? null : hour.hour)
    .where('timezone', '==', hour.timezone)
    .count()
    .get();
  return snap.data().count;
}

/** What a scheduler must do for per-hour schedules: the words the issue asks for, on the page, in the CLI and the README. */
export const SCHEDULER_REQUIREMENT =
  "per-hour schedules need a scheduler that calls at least hourly (Vercel Pro, GitHub Actions, cron-job.org); the Vercel Hobby plan's once-a-day cron serves only the default hour";

/** One unserved hour in words: `Europe/Berlin 18:00 (17:00 UTC, 3 subscribers)`. */
export function unservedHourText(u: UnservedHour): string {
  const local = `${String(u.hour).padStart(2, '0')}:00`;
  const utc = u.slot.toISOString().slice(11, 16);
  const who = u.subscribers === null ? '' : `, ${u.subscribers} subscriber${u.subscribers === 1 ? '' : 's'}`;
  return `${u.timezone} ${local}${u.followsDefault ? ' (the default hour)' : ''} (${utc} UTC${who})`;
}

/** The warning, or the all-clear, in one line for `scout status`; the ops page shows the same facts. */
export function digestHourCoverageText(c: DigestHourCoverage): string {
  const checked = `${c.hoursChecked} zone/hour pair${c.hoursChecked === 1 ? '' : 's'} checked${c.truncated ? `, some not: over ${ZONES_PER_HOUR} zones at one hour` : ''}`;
  if (c.hoursChecked === 0) return 'digest hours: no active digest subscribers';
  if (c.unservedTotal === 0)
    return `digest hours: every subscriber's local digest hour in the last day had a run within the hour (${checked})`;
  const more = c.unservedTotal > c.unserved.length ? `, and ${c.unservedTotal - c.unserved.length} more` : '';
  return (
    `digest hours: ${c.unservedTotal} local digest hour${c.unservedTotal === 1 ? '' : 's'} in the last day had no run within the hour, so those digests go out late: ` +
    `${c.unserved.map(unservedHourText).join(', ')}${more}. ${capitalise(SCHEDULER_REQUIREMENT)} (DIGEST_HOUR_UTC=${c.digestHourUtc}). (${checked})`
  );
}

const capitalise = (text: string) => `${text[0].toUpperCase()}${text.slice(1)}`;
