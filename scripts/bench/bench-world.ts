import type { Firestore } from 'firebase-admin/firestore';
import { DateTime } from 'luxon';
import { currentPeriod, dueSlotFor, latestDigestSlot, WEEKDAYS } from '../../lib/subscribers/digest-schedule';
import { digestEmailKey, newOutboxRow, outboxCollection } from '../../lib/outbox/outbox-row';
import { digestScheduleOf, subscribersCollection, subscriberId, type Subscriber } from '../../lib/subscribers/subscriber';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';
import { entryFor, matchIndexShardOf, matchIndexShardRef, type IndexEntry } from '../../lib/subscribers/match-index';
import { DEFAULT_MATCH_INDEX_SHARDS as K } from '../../lib/subscribers/match-index-layout';
import { repairMatchIndex } from '../../lib/subscribers/repair-match-index';
import { SCHEMA_VERSION } from '../../lib/ledger/migrations/migrations';
import { schemaRef } from '../../lib/ledger/migrations/schema-version';
import type { TestItem } from '../sample-feed/rss-feed';
import { routesOf, type Channel } from '../../lib/channels/channel';

/**
 * Synthetic data with a known match rate: K = 1 / matchRate keywords; subscriber i follows keyword
 * i mod K, posting j names keyword j mod K, so each (subscriber, posting) pair matches with
 * probability 1/K. Every other subscriber is instant, the rest daily.
 *
 * Where the daily subscribers' digests fall (`digestWorld`):
 *   - `spread`: over the 24 hours of the UTC day. Daily subscriber d has its slot at UTC
 *     hour d mod 24 of the bench's day, in one of SPREAD_ZONES (the zone by ⌊d / 24⌋), at the local
 *     hour that makes it so — in a half-hour zone (Kolkata, Lord Howe) the slot is half an hour
 *     earlier. So a flush at any hour finds about 1/24 of them due per hour since the last one.
 *   - `utc08`: every one at the default 08:00 UTC, the world before schedules.
 * In the spread world the digest of each subscriber's current local period whose hour has passed
 * at the bench's start was sent already (seedSentDigests): the steady state of a scheduler that
 * calls hourly, and not a first day on which half the world is owed a catch-up.
 */
export type DigestWorld = 'spread' | 'utc08';
export const DIGEST_WORLDS: readonly DigestWorld[] = ['spread', 'utc08'];
export type BenchShape = {
  subscribers: number;
  postings: number;
  matchRate: number;
  digestWorld: DigestWorld;
  /** Real postings' plain texts, one before each bench posting's own sentence (--real-text); none: the short bench text. */
  realTexts?: readonly string[];
};

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Zones of every kind of offset: whole hours east and west, half an hour, and Lord Howe's half-hour summer shift. */
export const SPREAD_ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
  'America/Los_Angeles',
  'Asia/Tokyo',
  'America/Sao_Paulo',
] as const;

/** The schedule fields of subscriber i: null for an instant subscriber's, which has none to speak of. */
export function benchSchedule(i: number, world: DigestWorld, day: Date): Pick<Subscriber, 'timezone' | 'digestHour'> {
  if (world === 'utc08' || i % 2 === 0) return { timezone: 'UTC', digestHour: null };
  const d = (i - 1) / 2;
  const timezone = SPREAD_ZONES[Math.floor(d / 24) % SPREAD_ZONES.length];
  const utc = DateTime.fromJSDate(day, { zone: 'utc' })
    .startOf('day')
    .set({ hour: d % 24 });
  return { timezone, digestHour: utc.setZone(timezone).hour };
}

const isDaily = (i: number) => i % 2 === 1;

export const keywordCount = (shape: BenchShape) => Math.max(1, Math.round(1 / shape.matchRate));
const keyword = (i: number) => `kw${i}`;

/** The store at the code's schema version, as a running deployment's is after `scout migrate` (lib/ledger/migrations/). */
export async function markSchemaCurrent(db: Firestore, now: Date): Promise<void> {
  await schemaRef(db).set({ version: SCHEMA_VERSION, origin: 'migrated', applying: null, applied: [], stampedAt: now });
}

/** Subscribers a seeding batch writes: with one index write per shard, under the 500 writes a batch may hold. */
const SEED_BATCH = 480;

/**
 * The repair sweep, run to its end as a deployment's first runs would: it checks every seeded
 * subscriber against the index and stamps the shards built, so the bench's runs read the index.
 */
export async function buildMatchIndex(db: Firestore, now: Date, shards = K): Promise<{ runs: number; checked: number; drift: number }> {
  let runs = 0;
  let checked = 0;
  let drift = 0;
  for (;;) {
    const r = await repairMatchIndex(db, { now, shards });
    runs += 1;
    checked += r.checked;
    drift += r.drift;
    if (r.finished || !r.ran) return { runs, checked, drift };
  }
}

/**
 * How long before the bench's day its subscribers signed up and last changed anything: a running
 * deployment's subscribers are not all edited at the instant of its first run (the flush reads a
 * subscriber's digest rows by key only when their schedule is older than their queued items,
 * lib/claims/digest-rows.ts).
 */
const SIGNED_UP_DAYS_BEFORE = 30;

/** Subscriber i's channel (--channels, bench-channels.ts), or null: most have none. */
export type BenchChannelOf = (i: number, mode: 'instant' | 'daily') => Channel | null;

/**
 * `indexShards`: the match index's layout, as MATCH_INDEX_SHARDS sets it (the default, 16, unless
 * given). `channelOf`: a channel for some subscribers, written with them as the product writes one
 * (the converter stores the list and its states, the index entry carries its route).
 */
export async function seedSubscribers(
  db: Firestore,
  shape: BenchShape,
  now: Date,
  indexShards = K,
  channelOf: BenchChannelOf = () => null,
): Promise<void> {
  const k = keywordCount(shape);
  const signedUp = new Date(now.getTime() - SIGNED_UP_DAYS_BEFORE * 86_400_000);
  const writes: Promise<unknown>[] = [];
  // Each batch writes its subscribers and their match index entries, as the signups that made them would have.
  for (let start = 0; start < shape.subscribers; start += SEED_BATCH) {
    const batch = db.batch();
    const entries = new Map<number, Record<string, IndexEntry>>();
    for (let i = start; i < Math.min(shape.subscribers, start + SEED_BATCH); i++) {
      const email = `bench${i}@example.com`;
      const subscriber: Subscriber = {
        id: subscriberId(email),
        email,
        keywords: [keyword(i % k)],
        excludes: [],
        minPay: NO_MIN_PAY,
        mode: isDaily(i) ? 'daily' : 'instant',
        about: '',
        profileVersion: 1,
        fitThreshold: 60,
        status: 'active',
        ...benchSchedule(i, shape.digestWorld, now),
        weekdays: [...WEEKDAYS],
        weeklyDay: 'mon',
        createdAt: signedUp,
        confirmedAt: signedUp,
        updatedAt: signedUp,
      };
      const channel = channelOf(i, subscriber.mode === 'daily' ? 'daily' : 'instant');
      if (channel) Object.assign(subscriber, { channels: [channel], routes: routesOf([channel]) });
      batch.set(subscribersCollection(db).doc(subscriber.id), subscriber);
      const shard = matchIndexShardOf(subscriber.id, indexShards);
      entries.set(shard, { ...entries.get(shard), [subscriber.id]: entryFor(subscriber)! });
    }
    for (const [shard, profiles] of entries) batch.set(matchIndexShardRef(db, shard, indexShards), { profiles }, { merge: true });
    writes.push(batch.commit());
    if (writes.length >= 8) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
}

export function benchPostings(shape: BenchShape, now: Date): TestItem[] {
  const k = keywordCount(shape);
  return Array.from({ length: shape.postings }, (_, j) => ({
    guid: `bench-${j}`,
    title: `Senior ${keyword(j % k)} engineer for a ${j % 3 === 0 ? 'marketplace' : 'SaaS'} (${j})`,
    link: `https://jobs.example.com/bench/${j}`,
    // With real texts the keyword comes after a whole real posting: matching must read to its end.
    description: `${shape.realTexts?.length ? `<p>${escapeHtml(shape.realTexts[j % shape.realTexts.length])}</p>` : ''}<p>We need help with ${keyword(j % k)}. Remote, long term.</p><b>Budget</b>: $${1000 + (j % 20) * 250}`,
    pubDate: new Date(now.getTime() - (j + 1) * 1000).toUTCString(),
  }));
}

/** Expected candidate pairs for a shape (every subscriber whose keyword the posting names). */
export function expectedMatches(shape: BenchShape): number {
  const k = keywordCount(shape);
  let total = 0;
  for (let j = 0; j < shape.postings; j++) {
    const kw = j % k;
    total += kw < shape.subscribers % k ? Math.ceil(shape.subscribers / k) : Math.floor(shape.subscribers / k);
  }
  return total;
}

const scheduleOf = (i: number, world: DigestWorld, day: Date, digestHourUtc: number) =>
  digestScheduleOf({ mode: 'daily', weekdays: [...WEEKDAYS], weeklyDay: 'mon', ...benchSchedule(i, world, day) }, digestHourUtc)!;

/**
 * The spread world's past: for each daily subscriber whose slot in their current local period has
 * passed at `now`, that period's digest row, sent at the slot (an empty digest: only its key and
 * state matter). Seeding, not counted. The utc08 world at 06:00 has none: 08:00 is still ahead.
 */
export async function seedSentDigests(db: Firestore, shape: BenchShape, input: { now: Date; digestHourUtc: number }): Promise<number> {
  let seeded = 0;
  let batch = db.batch();
  const writes: Promise<unknown>[] = [];
  for (let i = 1; i < shape.subscribers; i += 2) {
    const schedule = scheduleOf(i, shape.digestWorld, input.now, input.digestHourUtc);
    const { period, slotPassed } = currentPeriod(schedule, input.now);
    if (!slotPassed) continue;
    const uid = subscriberId(`bench${i}@example.com`);
    const slot = latestDigestSlot(schedule, input.now);
    const payload = {
      from: 'bench@example.com',
      to: `bench${i}@example.com`,
      subject: 'Your Scout digest',
      html: '',
      text: '',
      headers: {},
    };
    const row = newOutboxRow({
      uid,
      kind: 'digest',
      deliveryIds: [],
      payload,
      runId: 'bench-earlier',
      now: slot,
      expireAt: new Date(slot.getTime() + 30 * 86_400_000),
    });
    batch.set(outboxCollection(db).doc(digestEmailKey(uid, period)), {
      ...row,
      status: 'sent',
      attempts: 1,
      firstAttemptAt: slot,
      sentAt: slot,
    });
    if (++seeded % 500 === 0) {
      writes.push(batch.commit());
      batch = db.batch();
    }
  }
  writes.push(batch.commit());
  await Promise.all(writes);
  return seeded;
}

/**
 * The daily subscribers due in each run after the claiming run at `claimedAt`, by the schedule
 * alone: those with a match (their keyword is in a posting) whose items the claim made due in
 * (previous run, this run], counted from the claiming run's own flush. What each flush ought to
 * find, to print beside what it did.
 */
export function dueSubscribersPerRun(shape: BenchShape, input: { claimedAt: Date; runs: Date[]; digestHourUtc: number }): number[] {
  const k = keywordCount(shape);
  const times = [input.claimedAt, ...input.runs].map((d) => d.getTime());
  const due = times.map(() => 0);
  for (let i = 1; i < shape.subscribers; i += 2) {
    if (i % k >= shape.postings) continue; // no posting names its keyword: nothing queued
    const schedule = scheduleOf(i, shape.digestWorld, input.claimedAt, input.digestHourUtc);
    // Where a period's slot has passed, its digest was sent (seedSentDigests): the items wait for the next slot.
    const dueAt = dueSlotFor(schedule, input.claimedAt, currentPeriod(schedule, input.claimedAt).slotPassed).dueAt.getTime();
    const run = times.findIndex((t) => t >= dueAt);
    if (run >= 0) due[run] += 1;
  }
  return due;
}
