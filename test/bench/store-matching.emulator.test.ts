import type { Firestore } from 'firebase-admin/firestore';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Posting } from '../../lib/feeds/posting';
import { matchPostings } from '../../lib/matching/match-postings';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';
import { parseQuery } from '../../lib/query/parse-query';
import { simpleFormOf } from '../../lib/query/subscriber-query';
import { createFirestore } from '../../lib/store/firestore';
import { DEFAULT_MATCH_INDEX_SHARDS } from '../../lib/subscribers/match-index-layout';
import { instrumentFirestore, type FirestoreCounter } from '../../scripts/bench/firestore-counter';
import { benchPostings, benchProfiles, benchQueries, type BenchProfile } from '../../scripts/bench/query-bench';
import { runStoreMatching, seedBenchProfiles } from '../../scripts/bench/store-matching';

let counter: FirestoreCounter;
let postings: Posting[];
const project = (name: string) => createFirestore({ projectId: `bench-store-${name}-${Date.now()}-${process.pid}` });

beforeAll(async () => {
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  process.env.METADATA_SERVER_DETECTION = 'none';
  counter = instrumentFirestore();
  postings = await benchPostings(20);
});
afterAll(() => counter.restore());

/** A written query whose index entry is past what an entry may inline: nine long terms and a remote clause. */
function longQuery(): BenchProfile {
  const text = [
    ...Array.from({ length: 9 }, (_, i) => `${'platformengineering'.repeat(2)}${String.fromCharCode(97 + i)}`),
    'remote:yes',
  ].join(' ');
  const parsed = parseQuery(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const { keywords, excludes } = simpleFormOf(parsed.tree);
  return { id: 'long', keywords, excludes, minPay: NO_MIN_PAY, query: text };
}

describe("the store's matching step", () => {
  let db: Firestore;
  let profiles: BenchProfile[];

  beforeAll(async () => {
    db = project('queries');
    profiles = [...benchProfiles(benchQueries(60, 3)).queries, longQuery()];
    await seedBenchProfiles(db, profiles, new Date());
  });

  it('reads the layout, every index shard and one users/ document per entry too long to inline, and nothing else', async () => {
    const run = await runStoreMatching(db, postings, counter);
    expect(run.subscribers).toBe(profiles.length);
    expect(run.pointers).toBe(1);
    expect(run.reads).toBe(1 + DEFAULT_MATCH_INDEX_SHARDS + run.pointers);
  });

  it('finds, from the store, exactly the matches of the same queries in memory', async () => {
    const run = await runStoreMatching(db, postings, counter);
    const inMemory = matchPostings(postings, profiles).map((m) => `${m.subscriber.id} ${m.posting.id}`);
    expect(inMemory.length).toBeGreaterThan(0);
    expect(run.matches.map(([subscriber, posting]) => `${subscriber} ${posting}`).sort()).toEqual(inMemory.sort());
  });

  it('refuses to measure a store whose match index is not built (a run would read users/ instead)', async () => {
    const empty = project('unbuilt');
    await expect(runStoreMatching(empty, postings, counter)).rejects.toThrow('the match index is not built');
    await empty.terminate();
  });
});
