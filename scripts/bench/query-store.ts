/**
 * npm run bench:query-store — a run's matching step over subscribers' search queries read from the
 * store, beside today's keywords, on the Firestore emulator (started on a free port, stopped after).
 *
 * The subscribers of npm run bench:query (query-bench.ts): each with a query of 3 to 10 clauses,
 * stored as a written query is (its text beside the lists simpleFormOf shows of it); and, in a
 * project of their own, the same subscribers as today's keyword subscriptions of those lists; and
 * bench:match's keyword subscribers (1–5 keywords each), today's figures. Each
 * world is written to users/ and its match index built by the repair sweep; then, as a cycle
 * matches, readActiveSubscribers (the layout's cursor, every index shard, and one users/ read per
 * entry too long to inline: a written query past ~300 bytes is stored as a pointer) and
 * matchPostings over real corpus postings. Reads are counted as Firestore bills them
 * (firestore-counter.ts); times are medians, the two worlds taking turns.
 *
 * Options: --subscribers N (10000), --postings N (500), --repeats N (5).
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Firestore } from 'firebase-admin/firestore';
import { createFirestore } from '../../lib/store/firestore';
import { keywordQueryText } from '../../lib/query/subscriber-query';
import { clearEmulatorProject, startFirestoreEmulator } from '../stack/firestore-emulator';
import { instrumentFirestore } from './firestore-counter';
import { freePort } from './free-port';
import { keywordSubscribers } from './bench-vocabulary';
import { benchPostings, benchProfiles, benchQueries, type BenchProfile } from './query-bench';
import { indexFacts, runStoreMatching, seedBenchProfiles, type StoreMatchRun } from './store-matching';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '10000' },
    postings: { type: 'string', default: '500' },
    repeats: { type: 'string', default: '5' },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
const POSTINGS = Number(values.postings);
const REPEATS = Number(values.repeats);

/** bench:match's keyword subscribers (bench-vocabulary.ts), each with the canonical text of its lists, as the forms store it. */
const todayIndex = (count: number): BenchProfile[] =>
  keywordSubscribers(count).map((profile) => ({ ...profile, query: keywordQueryText(profile.keywords, profile.excludes) }));

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

type World = { what: string; profiles: BenchProfile[]; db: Firestore; projectId: string; runs: StoreMatchRun[]; seedMs: number };

async function main() {
  console.log(`Node ${process.version}: ${SUBSCRIBERS} subscribers, ${POSTINGS} postings, ${REPEATS} repeats, on the Firestore emulator`);
  const postings = await benchPostings(POSTINGS);
  const profiles = benchProfiles(benchQueries(SUBSCRIBERS));
  const emulator = await startFirestoreEmulator({ port: await freePort() });
  process.env.FIRESTORE_EMULATOR_HOST = emulator.host;
  process.env.METADATA_SERVER_DETECTION = 'none';
  const counter = instrumentFirestore();
  const worlds: World[] = [
    { what: 'queries', profiles: profiles.queries },
    { what: "keywords: the queries' lists (today)", profiles: profiles.keywords },
    { what: "keywords, 1–5 each (bench:match's index)", profiles: todayIndex(SUBSCRIBERS) },
  ].map((world) => {
    const projectId = `bench-query-store-${randomBytes(3).toString('hex')}`;
    return { ...world, projectId, db: createFirestore({ projectId }), runs: [], seedMs: 0 };
  });
  try {
    const now = new Date();
    for (const world of worlds) {
      const started = performance.now();
      await seedBenchProfiles(world.db, world.profiles, now);
      world.seedMs = performance.now() - started;
    }
    for (const world of worlds) await runStoreMatching(world.db, postings, counter); // unmeasured: the JIT and the emulator warm up
    for (let i = 0; i < REPEATS; i++) for (const world of worlds) world.runs.push(await runStoreMatching(world.db, postings, counter));
    await report(worlds, postings.length);
  } finally {
    counter.restore();
    for (const world of worlds) {
      await world.db.terminate();
      await clearEmulatorProject(emulator.host, world.projectId);
    }
    await emulator.stop();
  }
}

async function report(worlds: World[], postings: number) {
  const rows = [];
  for (const world of worlds) {
    const last = world.runs.at(-1)!;
    const reads = new Set(world.runs.map((run) => run.reads));
    const index = await indexFacts(world.db);
    rows.push({
      what: world.what,
      subscribers: last.subscribers,
      'index shards': index.shards,
      'index KB': Math.round(index.bytes / 1024),
      'longest entry B': index.longestEntry,
      pointers: last.pointers,
      reads: reads.size === 1 ? last.reads : [...reads].join('/'),
      'read ms': median(world.runs.map((run) => run.readMs)).toFixed(0),
      'of which decoding ms': index.decodeMs.toFixed(0),
      'match ms': median(world.runs.map((run) => run.matchMs)).toFixed(0),
      matches: last.matches.length,
      'seeded in s': (world.seedMs / 1000).toFixed(0),
    });
  }
  console.log(`\nThe matching step (median of ${REPEATS} runs over ${postings} postings; reads as Firestore bills them):`);
  console.table(rows);
  const [query, ...keywords] = worlds.map((world) => ({
    reads: world.runs.at(-1)!.reads,
    match: median(world.runs.map((run) => run.matchMs)),
    read: median(world.runs.map((run) => run.readMs)),
  }));
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  console.log("queries beside keywords (their lists; bench:match's index):");
  for (const [what, of] of [
    ['reads', (w: typeof query) => w.reads],
    ['read time', (w: typeof query) => w.read],
    ['match time', (w: typeof query) => w.match],
  ] as const)
    console.log(`  ${what}: ${keywords.map((keyword) => ratio(of(query), of(keyword))).join('; ')}`);
  console.log("reads: the layout's cursor + each index shard + one users/ read per pointer");
}

await main();
