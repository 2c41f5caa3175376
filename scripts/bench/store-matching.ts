/**
 * The matching step of a run, read from the store (npm run bench:query-store, query-store.ts, and
 * its test on a few subscribers): bench subscribers written to users/ and the match index built by
 * the repair sweep, as a deployment's first runs build it; then what a cycle does to match —
 * readActiveSubscribers (the layout's cursor, every index shard, one users/ read per entry too long
 * to inline) and matchPostings over the postings — counted and timed.
 */
import type { Firestore } from 'firebase-admin/firestore';
import type { Posting } from '../../lib/feeds/posting';
import { matchPostings } from '../../lib/matching/match-postings';
import { allIndexShards, decodeProfile, readActiveSubscribers, readIndexShards } from '../../lib/subscribers/match-index';
import { readIndexLayout } from '../../lib/subscribers/match-index-layout';
import { WEEKDAYS } from '../../lib/subscribers/digest-schedule';
import { subscriberId, subscribersCollection, type Subscriber } from '../../lib/subscribers/subscriber';
import { buildMatchIndex } from './bench-world';
import type { FirestoreCounter } from './firestore-counter';
import type { BenchProfile } from './query-bench';

/** A bench subscriber's address: its profile's id shows through, so a match read from the store names the profile it came from. */
export const benchEmail = (profile: Pick<BenchProfile, 'id'>) => `bench-${profile.id}@example.com`;
export const profileIdOf = (email: string) => email.slice('bench-'.length, -'@example.com'.length);

/** users/ documents a seeding batch writes (a batch may hold 500). */
const SEED_BATCH = 500;

/**
 * Writes each profile as an active instant subscriber, with its query and lists as the forms store
 * them, then runs the repair sweep to its end: it files every subscriber's entry (inline, or a
 * pointer to users/ when longer than an entry may be) and stamps the shards built.
 */
export async function seedBenchProfiles(db: Firestore, profiles: BenchProfile[], now: Date): Promise<void> {
  const signedUp = new Date(now.getTime() - 30 * 86_400_000);
  const writes: Promise<unknown>[] = [];
  for (let start = 0; start < profiles.length; start += SEED_BATCH) {
    const batch = db.batch();
    for (const profile of profiles.slice(start, start + SEED_BATCH)) {
      const email = benchEmail(profile);
      const subscriber: Subscriber = {
        id: subscriberId(email),
        email,
        keywords: profile.keywords,
        excludes: profile.excludes,
        ...(profile.query !== undefined ? { query: profile.query } : {}),
        minPay: profile.minPay,
        mode: 'instant',
        about: '',
        profileVersion: 1,
        fitThreshold: 60,
        status: 'active',
        timezone: 'UTC',
        digestHour: null,
        weekdays: [...WEEKDAYS],
        weeklyDay: 'mon',
        createdAt: signedUp,
        confirmedAt: signedUp,
        updatedAt: signedUp,
      };
      batch.set(subscribersCollection(db).doc(subscriber.id), subscriber);
    }
    writes.push(batch.commit());
    if (writes.length >= 8) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  await buildMatchIndex(db, now);
}

/** One matching step: what it read and how long its two halves took. */
export type StoreMatchRun = {
  /** Documents read, as Firestore bills them (the process-wide counter). */
  reads: number;
  /** Entries too long to inline: each a users/ read. */
  pointers: number;
  subscribers: number;
  readMs: number;
  matchMs: number;
  /** (profile id, posting id) of every pair that fits. */
  matches: [string, string][];
};

/** The matching step once: readActiveSubscribers(db, undefined), as an unsharded run reads, then matchPostings. */
export async function runStoreMatching(db: Firestore, postings: Posting[], counter: FirestoreCounter): Promise<StoreMatchRun> {
  counter.reset();
  let started = performance.now();
  const active = await readActiveSubscribers(db, undefined);
  const readMs = performance.now() - started;
  const reads = counter.snapshot().reads;
  if (active.from !== 'index') throw new Error('the match index is not built: the run read users/ instead');
  started = performance.now();
  const found = matchPostings(postings, active.subscribers);
  const matchMs = performance.now() - started;
  return {
    reads,
    pointers: active.pointers,
    subscribers: active.subscribers.length,
    readMs,
    matchMs,
    matches: found.map((m) => [profileIdOf(m.subscriber.email), m.posting.id]),
  };
}

/**
 * The index as stored: how many shards the layout has, their bytes, its longest inline entry
 * (UTF-8 bytes; past MAX_INLINE_ENTRY_BYTES an entry is a pointer), and how long turning every
 * entry back into a subscriber takes in this process (part of the read: a written query is parsed
 * there, once per run), the second of two passes.
 */
export async function indexFacts(db: Firestore): Promise<{ shards: number; bytes: number; longestEntry: number; decodeMs: number }> {
  const count = (await readIndexLayout(db)).shards;
  const shards = await readIndexShards(db, allIndexShards(count), count);
  const entries = shards.flatMap((shard) => [...shard.profiles].filter((pair): pair is [string, string] => pair[1] !== null));
  let decodeMs = 0;
  for (let pass = 0; pass < 2; pass++) {
    const started = performance.now();
    for (const [uid, entry] of entries) decodeProfile(uid, entry);
    decodeMs = performance.now() - started;
  }
  return {
    shards: count,
    bytes: shards.reduce((total, shard) => total + shard.bytes, 0),
    longestEntry: Math.max(0, ...entries.map(([, entry]) => Buffer.byteLength(entry, 'utf8'))),
    decodeMs,
  };
}
