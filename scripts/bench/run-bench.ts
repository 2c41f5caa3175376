/**
 * npm run bench — one cycle at scale, on the emulator and the mail sink, through the endpoint's
 * handler (in process, so the store can be counted): U subscribers × J new postings, a 1% match
 * rate, half instant and half daily, the provider limited to 2 requests/s. Then the digest flushes.
 * Prints wall time, Firestore reads/writes/round trips per phase (counted by instrumenting the
 * client, not estimated), emails, provider requests and peak memory, and the same data through a
 * naive baseline.
 *
 * The daily subscribers' digests (--digest-world, bench-world.ts): `spread` (the default) puts
 * their local digest hours over the 24 hours of the UTC day, in eight zones; after the 06:00 cycle
 * the bench runs the endpoint every three hours for a day (and once more five minutes after one of
 * them, with nothing due) and prints, per run, the subscribers due, the reads and writes of its
 * flush phase and of the whole run, and reads ÷ due: a flush reads what is due, never everyone.
 * `utc08` is the world before schedules: every digest at 08:00 UTC, one flush at 08:05.
 *
 * Before Scout's runs, on the same emulator, the bench measures the emulator's floor (floor.ts:
 * batched create()s and getAll reads per second) and prints each phase as a multiple of the time
 * its counted reads and writes take at those rates; and it runs the render bench (render-bench.ts,
 * in a process of its own; --no-render skips it). After them, one idle run (nothing new, nothing
 * due) and the counts by collection give the Firestore bill of a realistic day at the bench's own
 * U (bill.ts): 96 runs, the day's J postings spread over them, 1% matching, half instant.
 *
 *   npm run bench                                   U=10,000  J=500, digests spread over the day
 *   npm run bench -- --digest-world utc08           every digest at 08:00 UTC, one flush at 08:05
 *   npm run bench -- --subscribers 1000 --postings 100 --no-naive
 *   npm run bench -- --json out.json --emulator-port 8290
 *   npm run bench -- --ai                           the same workload with the model off and on
 *   npm run bench -- --no-render                    without the render bench alongside
 *   npm run bench -- --real-text                    each posting carries a real corpus posting's whole text before its keyword
 *   npm run bench -- --subscribers 100000 --shards 4   four shards called together, a process each
 *   npm run bench -- --channels 0.2                 a fifth of the subscribers with a channel each
 *
 * --shards n calls each run as n schedulers call a sharded deployment (`?shard=k&shards=n`, all
 * at once), each shard's calls in a process of its own (shard-process.ts), as each shard's
 * invocation runs in its own function instance: every process counts its own store operations
 * (so phases, floor ratios and the bill add the shards up) and reports its own peak RSS and each
 * call's duration against the 300 s wall. A run that answers partial is followed by catch-up runs
 * every 15 minutes, as a scheduler would, until one finishes or the next scheduled run comes.
 *
 * --json <path> also writes the figures as JSON (shape: BenchResult in bench-result.ts);
 * --emulator-port <n> (default 8190; 0 = a free one) keeps two benches off one emulator: an
 * emulator already answering on the port is shared, and its other load skews the timings.
 *
 * --ai starts the model fake (its own process, every answer --ai-delay-ms late, default 50) and
 * runs the workload --repeats times (default 3) with the model off and as often with it on
 * (AI_BASE_URL at the fake, caps high enough not to bite: --ai-max-calls, --ai-token-budget;
 * --ai-concurrency sets AI_CONCURRENCY, else its default), alternating. It prints the last
 * model-on run's table as above, then the medians' added wall time, model requests (counted by
 * the fake), and calls and tokens (from aiUsage) per delivery. No naive baseline with --ai.
 *
 * --channels <share> (default 0: no channel, every figure as before) gives that share of the
 * instant subscribers and of the daily ones one active channel each (bench-channels.ts): slack,
 * discord, telegram and webhook in turn, instant alerts for an instant subscriber, the digest for a
 * daily one, written with the subscriber as the product writes them (the list and its states, the
 * index entry's routes). They point at the channel stand-in, in a process of its own with each
 * platform's documented rate enforced; CHANNEL_ALLOW_LOOPBACK and Scout's bot (TELEGRAM_*) are set
 * for the app. It prints, per kind, the requests the stand-in took and refused and the messages
 * created, sent and failed. Every run prints reads and writes per claimed delivery by phase
 * (per-delivery.ts): the claim's and the flush's change with channels (their messages are created in
 * the same writes), and the messages phase is the channels' dispatch, counted in a lane of its own.
 * Not with --ai.
 */
import { matchIndexShardsFor } from '../../lib/subscribers/match-index-layout';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import type { CyclePhase, RunAnswer } from '../../lib/ledger/runs';
import { parseFeed } from '../../lib/feeds/parse-feed';
import { storeNewPostings } from '../../lib/feeds/store-postings';
import { FEED_MAX_NEW_POSTINGS_PER_RUN } from '../../lib/feeds/refresh-feeds';
import type { Tuning } from '../../lib/runtime/config';
import { AI_MAX_CALLS_PER_RUN } from '../../lib/verdicts/ai-usage';
import { AI_CONCURRENCY } from '../../lib/verdicts/judge-postings';
import { rssFeed } from '../sample-feed/rss-feed';
import { startFeedServer, type FeedServer } from '../sample-feed/server';
import { clearEmulatorProject, startFirestoreEmulator } from '../stack/firestore-emulator';
import { startSinkProcess, type SinkProcess } from './sink-process';
import { startModelFakeProcess, type ModelFakeProcess } from './model-fake-process';
import { modelFigureLines, summarizeModelRuns, type ModelRun } from './model-figures';
import { sumModelTokens, type ModelUsage } from './model-usage';
import {
  benchPostings,
  DIGEST_WORLDS,
  dueSubscribersPerRun,
  expectedMatches,
  seedSentDigests,
  seedSubscribers,
  buildMatchIndex,
  markSchemaCurrent,
  type BenchShape,
  type DigestWorld,
} from './bench-world';
import type { BenchNaive, BenchPhaseRow, BenchResult, BenchRun } from './bench-result';
import { freePort, portInUse } from './free-port';
import { instrumentFirestore, type FirestoreCounter } from './firestore-counter';
import {
  addByCollection,
  benchDeps,
  benchLane,
  addCounts,
  BENCH_SECRET,
  shardCaller,
  trackPeakMemory,
  type Counts,
  type PhaseRow,
  type ShardCall,
} from './shard-caller';
import { startShardProcesses } from './shard-processes';
import { runNaiveCycle } from './naive-cycle';
import { COLLECTIONS } from '../../lib/store/collections';
import type { Firestore } from 'firebase-admin/firestore';
import {
  billLines,
  countedOps,
  dayBill,
  emailsPerMonth,
  FIRESTORE_LIST_PRICE,
  FIRESTORE_REGIONAL_PRICE,
  REALISTIC_DAY,
  rebuiltOps,
  resendPerMonth,
  STORAGE_PRICE_PER_GIB_MONTH,
  storageBill,
  storageLines,
  unitCosts,
  type BenchCounted,
} from './bill';
import { measureStoredBytes } from './stored-bytes';
import type { CountsByCollection } from './firestore-counter';
import { floorMs, measureEmulatorFloor, timesFloor, type EmulatorFloor } from './floor';
import { measureRendering } from './render-process';
import type { BenchBill, BenchFloorRatio, RenderFigures } from './bench-result';
import { readCorpusPostings } from './corpus-postings';
import {
  benchChannelOf,
  channelLines,
  channelsPerKind,
  measureChannels,
  startChannelStandInProcess,
  type ChannelStandInProcess,
} from './bench-channels';
import { perDelivery, perDeliveryLines } from './per-delivery';

const realTextNote = (shape: BenchShape) => {
  if (!shape.realTexts) return '';
  const lengths = shape.realTexts.map((text) => text.length).sort((a, b) => a - b);
  return `, each posting after a real corpus text (${lengths.length} texts, median ${lengths[lengths.length >> 1].toLocaleString('en-US')} characters, longest ${lengths.at(-1)!.toLocaleString('en-US')})`;
};

/** Every real corpus posting's stored text that is longer than the bench's own sentence, in corpus order. */
async function realPostingTexts(): Promise<string[]> {
  const files = await readCorpusPostings();
  return files.flatMap((file) => file.postings.map((posting) => posting.description)).filter((text) => text.length > 200);
}

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '10000' },
    postings: { type: 'string', default: '500' },
    'match-rate': { type: 'string', default: '0.01' },
    rate: { type: 'string', default: '2' },
    'no-naive': { type: 'boolean', default: false },
    'naive-send-limit': { type: 'string', default: '20' },
    json: { type: 'string' },
    'emulator-port': { type: 'string', default: '8190' },
    shards: { type: 'string', default: '1' },
    ai: { type: 'boolean', default: false },
    repeats: { type: 'string', default: '3' },
    'ai-delay-ms': { type: 'string', default: '50' },
    'ai-concurrency': { type: 'string' },
    'ai-max-calls': { type: 'string', default: '100000' },
    'ai-token-budget': { type: 'string', default: '1000000000' },
    'digest-world': { type: 'string', default: 'spread' },
    'no-render': { type: 'boolean', default: false },
    'real-text': { type: 'boolean', default: false },
    // 0: no subscriber has a channel, and every figure stays comparable with runs before channels.
    channels: { type: 'string', default: '0' },
    // A shorter budget makes a small world's runs partial, so its catch-up runs can be checked at any size.
    'run-budget-ms': { type: 'string', default: '280000' },
  },
});

if (!(DIGEST_WORLDS as readonly string[]).includes(values['digest-world'])) {
  console.error(`--digest-world must be one of ${DIGEST_WORLDS.join(', ')}, got "${values['digest-world']}"`);
  process.exit(2);
}
const shape: BenchShape = {
  subscribers: Number(values.subscribers),
  postings: Number(values.postings),
  matchRate: Number(values['match-rate']),
  digestWorld: values['digest-world'] as DigestWorld,
  ...(values['real-text'] ? { realTexts: await realPostingTexts() } : {}),
};
const RATE = Number(values.rate);
/** --channels: the share of subscribers with one channel each, at the channel stand-in (bench-channels.ts). */
const CHANNEL_SHARE = Number(values.channels);
if (!(CHANNEL_SHARE >= 0 && CHANNEL_SHARE <= 1)) {
  console.error(`--channels must be a share from 0 to 1, got "${values.channels}"`);
  process.exit(2);
}
if (CHANNEL_SHARE > 0 && values.ai) {
  console.error('--channels and --ai are measured apart: give one of them');
  process.exit(2);
}
/** With n > 1, each run is n callers `?shard=k&shards=n` at once, as a sharded deployment calls it. */
const SHARDS = Number(values.shards);
if (!Number.isInteger(SHARDS) || SHARDS < 1 || SHARDS > 64) throw new Error('--shards must be a whole number from 1 to 64');
/** The match index's shards for U, the smallest layout docs/deploy.md's table gives for it. */
const INDEX_SHARDS = matchIndexShardsFor(shape.subscribers);
const RUN_AT = '2026-11-30T06:00:00Z';
/** The emulator's heap for the largest worlds: 16 GiB of this 24 GiB machine (the sink and four shard processes take ~3 GiB). */
const EMULATOR_HEAP_MB_LARGE = 16_384;
/**
 * The runs after the cycle: with digests spread over the day, every three hours round the clock
 * (12:05 finds nothing due: the cost of a run with no digest); at 08:00 UTC only, the 08:05 one.
 */
const FLUSHES_AT: string[] =
  shape.digestWorld === 'spread'
    ? [
        '2026-11-30T09:00:00Z',
        '2026-11-30T12:00:00Z',
        '2026-11-30T12:05:00Z',
        '2026-11-30T15:00:00Z',
        '2026-11-30T18:00:00Z',
        '2026-11-30T21:00:00Z',
        '2026-12-01T00:00:00Z',
        '2026-12-01T03:00:00Z',
        '2026-12-01T06:00:00Z',
      ]
    : ['2026-11-30T08:05:00Z'];
/** A run's label: `06:00 cycle`, `09:00 flush`, `+1d 03:00 flush`. */
const runLabel = (at: string, what: string) => `${at.slice(0, 10) === RUN_AT.slice(0, 10) ? '' : '+1d '}${at.slice(11, 16)} ${what}`;

/** --ai: runs with the model off and as many with it on, alternating; their medians are compared. */
const REPEATS = Number(values.repeats);
if (!Number.isInteger(REPEATS) || REPEATS < 1 || REPEATS > 20) throw new Error('--repeats must be a whole number from 1 to 20');
const MODEL_DELAY_MS = Number(values['ai-delay-ms']);
if (!Number.isInteger(MODEL_DELAY_MS) || MODEL_DELAY_MS < 0) throw new Error('--ai-delay-ms must be a whole number of ms');

const EMULATOR_PORT = Number(values['emulator-port']);
if (!Number.isInteger(EMULATOR_PORT) || EMULATOR_PORT < 0 || EMULATOR_PORT > 65535) {
  console.error(`--emulator-port must be an integer between 0 and 65535, got "${values['emulator-port']}"`);
  process.exit(2);
}

/** The collections under a TTL policy on `expireAt`, as scripts/apply-ttl.sh sets them: what they keep, Firestore deletes (and bills). */
const TTL_COLLECTIONS = [
  COLLECTIONS.postings,
  COLLECTIONS.postingKeys,
  COLLECTIONS.deliveries,
  COLLECTIONS.emails,
  COLLECTIONS.runs,
  COLLECTIONS.rateLimits,
  COLLECTIONS.subscribers,
  COLLECTIONS.adminSessions,
  COLLECTIONS.matches,
  COLLECTIONS.aiUsage,
  COLLECTIONS.nearMisses,
  COLLECTIONS.feedback,
  COLLECTIONS.messages,
];
/** Documents carrying `expireAt` per TTL collection: between two runs, the difference is what the TTL will delete of the run's. */
async function countExpiring(db: Firestore): Promise<Record<string, number>> {
  const counts = await Promise.all(
    TTL_COLLECTIONS.map(
      async (name) => [name, (await db.collection(name).where('expireAt', '!=', null).count().get()).data().count] as const,
    ),
  );
  return Object.fromEntries(counts);
}
const diffCounts = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(
    Object.keys(b)
      .map((k) => [k, b[k] - (a[k] ?? 0)] as const)
      .filter(([, n]) => n !== 0),
  );

async function main() {
  process.env.METADATA_SERVER_DETECTION = 'none';
  const port = EMULATOR_PORT === 0 ? await freePort() : EMULATOR_PORT;
  const emulatorShared = await portInUse(port);
  if (emulatorShared) {
    console.error(
      `note: an emulator already runs on port ${port}; sharing it (its other load skews the timings; --emulator-port picks another)`,
    );
  }
  // Past U=50,000 the emulator's default heap (a quarter of the machine) fills and stalls: give it room.
  const emulator = await startFirestoreEmulator({ port, maxHeapMb: shape.subscribers > 50_000 ? EMULATOR_HEAP_MB_LARGE : undefined });
  process.env.FIRESTORE_EMULATOR_HOST = emulator.host;
  const sink = await startSinkProcess();
  const feeds = await startFeedServer({ port: 0 });
  const modelFake = values.ai ? await startModelFakeProcess({ delayMs: MODEL_DELAY_MS }) : null;
  const standIn = CHANNEL_SHARE > 0 ? await startChannelStandInProcess() : null;
  // The run's sender works alongside the claim and the flush: its operations are counted in its own lane, and shown as dispatch.
  // The channels' dispatch works alongside the emails': its operations are counted in a lane of their own, shown as messages.
  const counter = instrumentFirestore({ lane: benchLane });
  const peak = trackPeakMemory();
  const cleanup = async () => {
    counter.restore();
    await modelFake?.close();
    await standIn?.close();
    await feeds.close();
    await sink.close();
    await emulator.stop();
  };
  // Stopped by a signal (the scaling run forwards one), still stop the emulator and the sink so the port is free again.
  // A signal can arrive more than once (the terminal's, tsx's relay, the scaling run's): the first one cleans up.
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const now = new Date(RUN_AT);
    feeds.setFeed('/jobs.xml', { body: rssFeed(benchPostings(shape, now)), contentType: 'application/rss+xml' });
    console.log(
      `Scout bench: U=${shape.subscribers.toLocaleString('en-US')} subscribers × J=${shape.postings} postings, match rate ${shape.matchRate} (expected ${expectedMatches(shape).toLocaleString('en-US')} matches), provider ${RATE} requests/s${realTextNote(shape)}`,
    );
    const floor = await measureEmulatorFloor({ emulatorHost: emulator.host });
    printFloor(floor);
    const render = values['no-render'] ? null : await measureRendering();
    if (render) printRender(render);
    const extras = { floor, render };
    if (modelFake) {
      await benchModelOffAndOn({
        sink,
        feeds,
        counter,
        emulatorHost: emulator.host,
        modelFake,
        peak,
        emulatorPort: port,
        emulatorShared,
        extras,
      });
      return;
    }

    const scout = await benchScout({ sink, feeds, counter, emulatorHost: emulator.host, standIn });
    printScout(scout, extras);
    const benchPeakMb = peak.stop() / 1024 / 1024;
    const shardPeaks = shardPeakRssMb(scout);
    const peakRssMb = shardPeaks ? Math.max(...shardPeaks) : benchPeakMb;
    if (shardPeaks) {
      printShards(scout);
      console.log(
        `peak RSS per shard process (each shard's calls in a process of its own; the sink and the emulator run apart): ${shardPeaks.map((mb) => `${mb} MB`).join(', ')}; the bench's own process ${benchPeakMb.toFixed(0)} MB`,
      );
    } else
      console.log(`peak RSS of the bench process during Scout's runs (the sink and the emulator run apart): ${peakRssMb.toFixed(0)} MB`);

    let naive: BenchNaive | null = null;
    if (!values['no-naive']) {
      const run = await benchNaive({ sink, feeds, emulatorHost: emulator.host, counter });
      naive = summarizeNaive(run, scout);
      printNaive(naive, scout);
    }
    if (values.json) {
      const result = benchResult({ scout, peakRssMb, naive, emulatorPort: port, emulatorShared, extras });
      await mkdir(dirname(values.json), { recursive: true });
      await writeFile(values.json, `${JSON.stringify(result, null, 2)}\n`);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  }
}

/** With the model on: the fake, and the API key that names this run's requests there. */
type ModelSetup = { fake: ModelFakeProcess; apiKey: string };

/** The deployment's environment for one project: every caller, in this process or a shard's, builds its deps from it. */
function benchEnv(input: {
  sink: SinkProcess;
  feeds: FeedServer;
  projectId: string;
  apiKey: string;
  model?: ModelSetup;
  standIn?: ChannelStandInProcess | null;
}) {
  return {
    CRON_SECRET: BENCH_SECRET,
    LINK_SECRET: 'bench-link-secret-0123456789',
    ADMIN_SECRET: 'bench-admin-secret-0123456789',
    APP_URL: 'https://scout.example.com',
    MAIL_FROM: 'Scout <alerts@scout.example.com>',
    RESEND_API_KEY: input.apiKey,
    RESEND_BASE_URL: input.sink.url,
    FIREBASE_PROJECT_ID: input.projectId,
    FIRESTORE_EMULATOR_HOST: process.env.FIRESTORE_EMULATOR_HOST,
    FEED_URLS: `bench=${input.feeds.url}/jobs.xml`,
    FEED_ALLOW_PRIVATE_ADDRESSES: 'true',
    ALLOW_CLOCK_OVERRIDE: 'true',
    SEND_RATE_PER_SEC: String(RATE),
    RUN_BUDGET_MS: values['run-budget-ms'],
    // The match index sized for U as docs/deploy.md tells a deployment to size it (256 shards at 100,000).
    MATCH_INDEX_SHARDS: String(INDEX_SHARDS),
    ...(input.model ? modelConfig(input.model) : {}),
    // Loopback channels and Scout's bot at the stand-in; without --channels, none of it is set.
    ...(input.standIn?.env ?? {}),
  };
}

/** The AI stage pointed at the fake, with a token budget high enough that it does not bite unless asked to. */
function modelConfig(model: ModelSetup): Record<string, string | undefined> {
  return {
    AI_BASE_URL: model.fake.baseUrl,
    AI_MODEL: model.fake.model,
    AI_API_KEY: model.apiKey,
    AI_DAILY_TOKEN_BUDGET: values['ai-token-budget'],
  };
}

/** The constants the bench's shape needs otherwise than production: passed to every caller, never through the environment. */
function benchTuning(): Tuning {
  return {
    // The bench's one source carries all J postings, to be taken in one run.
    FEED_MAX_NEW_POSTINGS_PER_RUN: Math.max(FEED_MAX_NEW_POSTINGS_PER_RUN, shape.postings),
    // With the model on, a call cap high enough not to bite unless asked to (--ai-max-calls).
    AI_MAX_CALLS_PER_RUN: Number(values['ai-max-calls']),
    ...(values['ai-concurrency'] ? { AI_CONCURRENCY: Number(values['ai-concurrency']) } : {}),
  };
}

async function benchScout(input: {
  sink: SinkProcess;
  feeds: FeedServer;
  counter: FirestoreCounter;
  emulatorHost: string;
  modelFake?: ModelFakeProcess;
  standIn?: ChannelStandInProcess | null;
}) {
  const projectId = `bench-scout-${randomBytes(3).toString('hex')}`;
  await clearEmulatorProject(input.emulatorHost, projectId);
  const apiKey = `re_bench_scout_${projectId}`;
  const model = input.modelFake ? { fake: input.modelFake, apiKey: `sk-bench-${projectId}` } : undefined;
  const env = benchEnv({ ...input, projectId, apiKey, model });
  const tuning = benchTuning();
  const deps = benchDeps(env, tuning);
  await input.sink.setFaults(apiKey, { ratePerSec: RATE });
  const seedStart = Date.now();
  // Channels verified the day before the bench's: as old as any a subscriber added on the preferences page.
  const channelOf = input.standIn ? benchChannelOf(CHANNEL_SHARE, input.standIn.url, new Date(Date.parse(RUN_AT) - 86_400_000)) : undefined;
  await seedSubscribers(deps.db, shape, new Date(RUN_AT), INDEX_SHARDS, channelOf);
  const sentBefore = await seedSentDigests(deps.db, shape, { now: new Date(RUN_AT), digestHourUtc: deps.config.DIGEST_HOUR_UTC });
  const seedMs = Date.now() - seedStart;
  // A deployment in its steady state: the store is at the code's schema version, and the
  // repair sweep has built the match index. The sweep is stamped at the bench's last run, so that
  // no daily sweep falls due inside the bench's day; what one costs is this, measured here and
  // billed once a day (bill.ts).
  await markSchemaCurrent(deps.db, new Date(RUN_AT));
  input.counter.reset();
  const sweepStart = Date.now();
  const lastRunAt = new Date(Date.parse(FLUSHES_AT.at(-1) ?? RUN_AT) + 5 * 60_000);
  const sweep = { ...(await buildMatchIndex(deps.db, lastRunAt, INDEX_SHARDS)), ms: 0, ...input.counter.snapshot() };
  sweep.ms = Date.now() - sweepStart;

  // One caller in this process, or one process per shard (as a sharded deployment runs them).
  const shardProcesses = SHARDS > 1 ? await startShardProcesses({ env, tuning, shards: SHARDS }) : null;
  const inProcess = shardCaller({ deps, counter: input.counter, shard: 0, shards: 1, peakRssMb: () => 0 });
  const call = async (now: string): Promise<RunCounts> => {
    const started = Date.now();
    const calls = shardProcesses ? await shardProcesses.call(now) : [await inProcess(now)];
    return {
      body: sumOfRuns(calls.map((c) => c.body)),
      ms: Date.now() - started,
      total: calls.reduce((sum, c) => addCounts(sum, c.total), { reads: 0, writes: 0, roundTrips: 0 }),
      collections: calls.reduce((sum, c) => addByCollection(sum, c.collections), {} as CountsByCollection),
      phases: calls.flatMap((c) => c.phases),
      shards: calls.map(shardAnswer),
    };
  };
  try {
    const day = await runTheDay({ ...input, deps, call, projectId, apiKey, model, seedMs, sweep, sentBefore });
    // Read after the runs, in none of their counts: the stand-in's requests, messages/ by kind, the runs' channel stats.
    const channels =
      input.standIn && channelOf
        ? await measureChannels({
            db: deps.db,
            standIn: input.standIn,
            share: CHANNEL_SHARE,
            channels: channelsPerKind(shape.subscribers, channelOf),
            runs: [day.cycle.body, ...day.flushes.map((f) => f.body), day.idle.body],
          })
        : null;
    return { ...day, channels };
  } finally {
    await shardProcesses?.close();
  }
}

/** The 06:00 cycle, the runs after it (and catch-up runs while one is partial), the idle run; what each left to the TTL. */
async function runTheDay(input: {
  sink: SinkProcess;
  counter: FirestoreCounter;
  deps: ReturnType<typeof benchDeps>;
  call: (now: string) => Promise<RunCounts>;
  projectId: string;
  apiKey: string;
  model: ModelSetup | undefined;
  seedMs: number;
  sweep: Sweep;
  sentBefore: number;
}) {
  const { deps, call, model, projectId, apiKey, seedMs, sweep, sentBefore } = input;
  // Counted between the runs, outside every run's figures: what each run leaves for the TTL to delete.
  const expiringBefore = await countExpiring(deps.db);
  const requestsBefore = await input.sink.requests(apiKey);
  input.counter.reset();
  const cycle = await call(RUN_AT);
  const cyclePhases = cycle.phases;
  const expiringAfterCycle = await countExpiring(deps.db);
  const requestsAfterCycle = await input.sink.requests(apiKey);
  // Read between the runs, outside both runs' counts and times.
  const cycleRequests = model ? await model.fake.requestCount(model.apiKey) : 0;
  const flushes: FlushRun[] = [];
  // A run that answered partial (its time budget spent, say on sending at the provider's rate) is
  // followed, as a scheduler every 15 minutes would, by catch-up runs until one finishes or the
  // next scheduled run comes.
  const catchUp = async (after: string, last: RunCounts, before: string | undefined) => {
    let at = after;
    for (let previous = last; previous.body.partial && flushes.length < 64;) {
      at = new Date(Date.parse(at) + CATCH_UP_EVERY_MS).toISOString().replace('.000Z', 'Z');
      if (before && Date.parse(at) >= Date.parse(before)) return;
      previous = await call(at);
      flushes.push({ at, label: runLabel(at, 'catch-up'), ...previous });
    }
  };
  await catchUp(RUN_AT, cycle, FLUSHES_AT[0]);
  // The cycle's own catch-ups finish its work (claims, alerts): booked with it, not with the digests.
  const cycleCatchUps = flushes.length;
  const expiringAfterCycleCatchUps = await countExpiring(deps.db);
  for (const [i, at] of FLUSHES_AT.entries()) {
    const run = await call(at);
    flushes.push({ at, label: runLabel(at, 'flush'), ...run });
    await catchUp(at, run, FLUSHES_AT[i + 1]);
  }
  const flush = sumOfFlushes(flushes);
  const flushPhases = flushes.flatMap((f) => f.phases);
  const expiringAfterFlushes = await countExpiring(deps.db);
  const requestsAfterFlushes = await input.sink.requests(apiKey);
  // The provider's view (the sink's count): requests it admitted, and refused with a 429, by the cycle and by the runs after it.
  const requestsSeen = (from: typeof requestsBefore, to: typeof requestsBefore) => ({
    admitted: to.admitted - from.admitted,
    refused: to.refused - from.refused,
  });
  const providerSaw = {
    cycle: requestsSeen(requestsBefore, requestsAfterCycle),
    flush: requestsSeen(requestsAfterCycle, requestsAfterFlushes),
  };
  // Five minutes after the last run: nothing new, nothing due. Every run of a day pays at least this (bill.ts); not in the figures above.
  const idleAt = new Date(Date.parse(flushes.at(-1)?.at ?? RUN_AT) + 5 * 60_000).toISOString().replace('.000Z', 'Z');
  const idleRun = await call(idleAt);
  const idle = { ...idleRun, at: idleAt, label: runLabel(idleAt, 'idle run') };
  const expiring = {
    cycle: diffCounts(expiringBefore, expiringAfterCycle),
    afterCycle: diffCounts(expiringAfterCycle, expiringAfterFlushes),
    cycleCatchUps: diffCounts(expiringAfterCycle, expiringAfterCycleCatchUps),
    afterCycleCatchUps: diffCounts(expiringAfterCycleCatchUps, expiringAfterFlushes),
    idle: diffCounts(expiringAfterFlushes, await countExpiring(deps.db)),
  };
  // What the day left in the store, sized as Firestore bills storage: read after the last run, in no run's counts.
  const stored = await measureStoredBytes(deps.db);
  const due = dueSubscribersPerRun(shape, {
    claimedAt: new Date(RUN_AT),
    runs: flushes.map((f) => new Date(f.at)),
    digestHourUtc: deps.config.DIGEST_HOUR_UTC,
  });
  const received = await input.sink.count(apiKey);
  const modelUsage: ModelUsage | null = model
    ? {
        requests: { cycle: cycleRequests, flush: (await model.fake.requestCount(model.apiKey)) - cycleRequests },
        tokens: await sumModelTokens(deps.db),
      }
    : null;
  if (model) await model.fake.clearRequests(model.apiKey);
  return {
    projectId,
    seedMs,
    sweep,
    sentBefore,
    cycle,
    cyclePhases,
    flush,
    flushPhases,
    flushes,
    idle,
    expiring,
    due,
    received,
    providerSaw,
    config: deps.config,
    modelUsage,
    stored,
    cycleCatchUps,
  };
}

/** What one shard's caller answered of a run: its own wall, the run's durationMs and partial, its process's peak RSS. */
type ShardAnswer = { shard: number; ms: number; durationMs: number; partial: boolean; peakRssMb: number };
const shardAnswer = (c: ShardCall): ShardAnswer => ({
  shard: c.shard,
  ms: c.ms,
  durationMs: Number(c.body.durationMs ?? c.ms),
  partial: Boolean(c.body.partial),
  peakRssMb: Math.round(c.peakRssMb),
});
/** One run, every shard's call of it together: the answers added up, the phases each shard was traced through. */
type RunCounts = {
  body: RunAnswer;
  ms: number;
  total: Counts;
  collections: CountsByCollection;
  phases: PhaseRow[];
  shards: ShardAnswer[];
};
/** One run after the cycle. */
type FlushRun = RunCounts & { at: string; label: string };
type Sweep = Awaited<ReturnType<typeof buildMatchIndex>> & Counts & { ms: number };
/** A scheduler's period: how soon a partial run is followed by the next. */
const CATCH_UP_EVERY_MS = 15 * 60_000;

/** The runs after the cycle as one: their counts, times and answers added up. */
function sumOfFlushes(flushes: FlushRun[]): Omit<RunCounts, 'phases' | 'shards'> {
  return {
    body: sumOfRuns(flushes.map((f) => f.body)),
    ms: flushes.reduce((ms, f) => ms + f.ms, 0),
    total: flushes.reduce(
      (sum, f) => ({
        reads: sum.reads + f.total.reads,
        writes: sum.writes + f.total.writes,
        roundTrips: sum.roundTrips + f.total.roundTrips,
      }),
      { reads: 0, writes: 0, roundTrips: 0 },
    ),
    collections: flushes.reduce((sum, f) => addByCollection(sum, f.collections), {} as CountsByCollection),
  };
}

/** Per run: the subscribers its flush ought to find due, what it claimed, and what its flush phase and the whole run cost. */
function perFlush(r: ScoutResult) {
  const runs = [{ label: runLabel(RUN_AT, 'cycle'), body: r.cycle.body, total: r.cycle.total, phases: r.cyclePhases }, ...r.flushes];
  return runs.map((run, i) => {
    const phase = run.phases.filter((p) => p.phase === 'flush');
    const flushCounts = phase.reduce((sum, p) => ({ reads: sum.reads + p.reads, writes: sum.writes + p.writes }), { reads: 0, writes: 0 });
    return { label: run.label, due: r.due[i], digests: Number(run.body.digests ?? 0), flush: flushCounts, run: run.total };
  });
}

/**
 * --ai: the same workload REPEATS times with the model off and as often with it on, each run on
 * a fresh project, alternating which goes first so a drift over the session (a warming JIT, a
 * fuller emulator) lands on both sides. Prints the last model-on run as the plain bench does,
 * then what the model added.
 */
async function benchModelOffAndOn(input: {
  sink: SinkProcess;
  feeds: FeedServer;
  counter: FirestoreCounter;
  emulatorHost: string;
  modelFake: ModelFakeProcess;
  peak: ReturnType<typeof trackPeakMemory>;
  emulatorPort: number;
  emulatorShared: boolean;
  extras: BenchExtras;
}) {
  const { modelFake } = input;
  console.log(
    `model: the fake at ${modelFake.baseUrl} (${modelFake.model}), every answer ${modelFake.delayMs} ms late; ${REPEATS} run${REPEATS === 1 ? '' : 's'} each with the model off and on, alternating; no naive baseline`,
  );
  const runs: ModelRun[] = [];
  let last: ScoutResult | undefined;
  for (let i = 0; i < REPEATS; i++) {
    for (const withModel of i % 2 === 0 ? [false, true] : [true, false]) {
      const r = await benchScout({ ...input, modelFake: withModel ? modelFake : undefined });
      const ms = { cycle: r.cycle.ms, flush: r.flush.ms, both: r.cycle.ms + r.flush.ms };
      runs.push({
        model: withModel ? 'on' : 'off',
        ms,
        deliveriesClaimed: r.cycle.body.instantDeliveries + r.cycle.body.queued,
        usage: r.modelUsage,
      });
      const requests = r.modelUsage
        ? `, ${(r.modelUsage.requests.cycle + r.modelUsage.requests.flush).toLocaleString('en-US')} model requests`
        : '';
      console.log(
        `  run ${runs.length} of ${2 * REPEATS}, model ${withModel ? 'on ' : 'off'}: 06:00 cycle ${(ms.cycle / 1000).toFixed(1)} s + ${r.flushes.length === 1 ? r.flushes[0].label : `${r.flushes.length} flush runs`} ${(ms.flush / 1000).toFixed(1)} s = ${(ms.both / 1000).toFixed(1)} s${requests}`,
      );
      if (withModel) last = r;
      // Kept, every run's documents would stay in the one emulator and slow each later run a little more.
      await clearEmulatorProject(input.emulatorHost, r.projectId);
    }
  }
  console.log(`\nwith the model on (the last of ${REPEATS} run${REPEATS === 1 ? '' : 's'}):`);
  printScout(last!, input.extras);
  const peakRssMb = input.peak.stop() / 1024 / 1024;
  console.log(
    `peak RSS of the bench process during Scout's runs (the sink, the model fake and the emulator run apart): ${peakRssMb.toFixed(0)} MB`,
  );
  const ai = summarizeModelRuns({
    runs,
    model: modelFake.model,
    delayMs: modelFake.delayMs,
    repeats: REPEATS,
    config: {
      AI_CONCURRENCY: last!.config.tuning?.AI_CONCURRENCY ?? AI_CONCURRENCY,
      AI_MAX_CALLS_PER_RUN: last!.config.tuning?.AI_MAX_CALLS_PER_RUN ?? AI_MAX_CALLS_PER_RUN,
      AI_DAILY_TOKEN_BUDGET: last!.config.AI_DAILY_TOKEN_BUDGET,
    },
  });
  for (const line of modelFigureLines(ai)) console.log(line);
  if (values.json) {
    const result = {
      ...benchResult({
        scout: last!,
        peakRssMb,
        naive: null,
        emulatorPort: input.emulatorPort,
        emulatorShared: input.emulatorShared,
        extras: input.extras,
      }),
      ai,
    };
    await mkdir(dirname(values.json), { recursive: true });
    await writeFile(values.json, `${JSON.stringify(result, null, 2)}\n`);
  }
}

type ScoutResult = Awaited<ReturnType<typeof benchScout>>;
/** What the bench measures besides Scout's runs: the emulator's floor, and the render bench's figures (null with --no-render). */
type BenchExtras = { floor: EmulatorFloor; render: RenderFigures | null };

function printFloor(floor: EmulatorFloor) {
  console.log(
    `emulator floor (before Scout's runs, same emulator; ${floor.documents.toLocaleString('en-US')} delivery-shaped documents, median of ${floor.repeats}): ` +
      `${Math.round(floor.createsPerSec).toLocaleString('en-US')} batched create()s/s (batches of 500, 4 in flight), ` +
      `${Math.round(floor.readsPerSec).toLocaleString('en-US')} getAll reads/s (chunks of 300)`,
  );
}

function printRender(render: RenderFigures) {
  const each = render.results.map(
    (x) => `${x.name} ${x.slotMs.toFixed(3)} ms (render() ${x.reactMs.toFixed(2)} ms, ${x.speedup.toFixed(1)}×)`,
  );
  console.log(
    `render bench alongside (npm run bench:render; ms per email, median of ${render.repeats} rounds of ${render.emails.toLocaleString('en-US')}): ${each.join('; ')} (target ≤ 0.2 ms)`,
  );
}

/**
 * The phases that wait on a platform's rate rather than the store: the emails' dispatch, and the
 * channels' beside it (a few queries without channels; with them, the platforms' pace). The cycle
 * "without dispatch" leaves both out.
 */
const PLATFORM_BOUND = new Set<CyclePhase>(['dispatch', 'messages']);

/**
 * Each phase against the emulator's floor: the time its counted reads and writes take at the
 * floor's rates (floor.ts). The cycle's phases and the cycle without dispatch; the flush and
 * dispatch phases of the runs after it, added up. Dispatch waits on the provider's rate, so its
 * ratio says how much of it is not the store. With several shards, every shard's reads and writes
 * against the slowest shard's time: they share one store, as they share one database deployed.
 */
function floorRatios(r: ScoutResult, floor: EmulatorFloor): BenchFloorRatio[] {
  const row = (run: string, phase: string, rows: PhaseRow[]): BenchFloorRatio => {
    const counts = rows.reduce((sum, p) => ({ reads: sum.reads + p.reads, writes: sum.writes + p.writes }), { reads: 0, writes: 0 });
    const ms = slowestShardMs(rows);
    return { run, phase, ms, ...counts, floorMs: floorMs(counts, floor), timesFloor: timesFloor(ms, counts, floor) };
  };
  const cycle = runLabel(RUN_AT, 'cycle');
  const after = r.flushes.length === 1 ? r.flushes[0].label : `${r.flushes.length} runs after the cycle`;
  return [
    ...(['fetch', 'match', 'claim', 'flush', 'dispatch'] as const).map((phase) =>
      row(
        cycle,
        phase,
        r.cyclePhases.filter((p) => p.phase === phase),
      ),
    ),
    row(
      cycle,
      'cycle without dispatch',
      r.cyclePhases.filter((p) => !PLATFORM_BOUND.has(p.phase)),
    ),
    row(
      after,
      'flush',
      r.flushPhases.filter((p) => p.phase === 'flush'),
    ),
    row(
      after,
      'dispatch',
      r.flushPhases.filter((p) => p.phase === 'dispatch'),
    ),
  ];
}

function printFloorRatios(ratios: BenchFloorRatio[], floor: EmulatorFloor) {
  console.log(
    `\nphases against the emulator's floor (${Math.round(floor.createsPerSec).toLocaleString('en-US')} creates/s, ${Math.round(floor.readsPerSec).toLocaleString('en-US')} reads/s, measured before the runs):\n`,
  );
  console.log('| run | phase | wall time | reads | writes | floor | × floor |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const x of ratios)
    console.log(
      `| ${x.run} | ${x.phase} | ${(x.ms / 1000).toFixed(1)} s | ${x.reads.toLocaleString('en-US')} | ${x.writes.toLocaleString('en-US')} | ${(x.floorMs / 1000).toFixed(2)} s | ${x.timesFloor === null ? '—' : `${x.timesFloor.toFixed(1)}×`} |`,
    );
  const cycle = ratios.find((x) => x.phase === 'cycle without dispatch');
  if (cycle?.timesFloor != null)
    console.log(
      `cycle without dispatch: ${cycle.timesFloor.toFixed(1)}× its floor (target ≤ 3×); dispatch waits on the provider's rate, not the store`,
    );
}

/**
 * What the bench's runs did, booked over every run: the cycle with its catch-ups (deliveries
 * claimed, alerts sent), and the runs after it (digests sent). A run cut short by its budget
 * leaves part of its work to the next, so counting the 06:00 call alone undercounts it.
 */
function bookedWork(r: ScoutResult) {
  const cycle = [r.cycle, ...r.flushes.slice(0, r.cycleCatchUps)];
  const body = sumOfRuns(cycle.map((run) => run.body));
  const after = r.flushes.slice(r.cycleCatchUps);
  return {
    cycle,
    deliveries: Number(body.instantDeliveries) + Number(body.queued),
    instantDeliveries: Number(body.instantDeliveries),
    queued: Number(body.queued),
    alerts: Number(body.instantEmails),
    /** Every run's alerts (a flush may send one a cycle left): what the sink's count is checked against. */
    alertsSent: Number(sumOfRuns([r.cycle.body, ...r.flushes.map((f) => f.body)]).instantEmails),
    digests: after.length > 0 ? Number(sumOfRuns(after.map((f) => f.body)).digests) : 0,
    // A catch-up matches the run's postings again (it does not resume): the pairs are the cycle's.
    matches: Number(r.cycle.body.matches),
  };
}

const sumCounts = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries([...new Set([...Object.keys(a), ...Object.keys(b)])].map((k) => [k, (a[k] ?? 0) + (b[k] ?? 0)]));

/**
 * The realistic day's Firestore bill (bill.ts), at the bench's own U with its J postings a day:
 * only the size whose unit costs were measured. A larger U is priced by a bench at that U (the
 * costs per unit are not the same: a run at 100,000 is partial, and its catch-ups are counted).
 */
function realisticBill(r: ScoutResult): BenchBill | null {
  const phasesOf = (rows: PhaseRow[]) => {
    const out: Partial<Record<CyclePhase, CountsByCollection>> = {};
    for (const p of rows) out[p.phase] = addByCollection(out[p.phase] ?? {}, p.collections);
    return out;
  };
  // The cycle is the 06:00 call and the catch-ups that finished its work; every run after is the digests'.
  const work = bookedWork(r);
  const afterCycle = r.flushes.slice(r.cycleCatchUps);
  const counted: BenchCounted = {
    subscribers: shape.subscribers,
    postings: shape.postings,
    cycle: {
      runs: 1 + r.cycleCatchUps,
      phases: phasesOf(work.cycle.flatMap((run) => run.phases)),
      total: work.cycle.reduce((sum, run) => addByCollection(sum, run.collections), {} as CountsByCollection),
      expiring: sumCounts(r.expiring.cycle, r.expiring.cycleCatchUps),
    },
    afterCycle: {
      runs: afterCycle.length,
      total: afterCycle.reduce((sum, run) => addByCollection(sum, run.collections), {} as CountsByCollection),
      expiring: r.expiring.afterCycleCatchUps,
    },
    idle: { phases: phasesOf(r.idle.phases), total: r.idle.collections, expiring: r.expiring.idle },
    deliveries: work.deliveries,
    alerts: work.alerts,
    digests: work.digests,
    sweep: { reads: r.sweep.reads, writes: r.sweep.writes, deletes: 0 },
  };
  const costs = unitCosts(counted);
  const realistic = [{ ...REALISTIC_DAY, subscribers: shape.subscribers, postingsPerDay: shape.postings }];
  const days = realistic.map((day) => dayBill(costs, day));
  const regional = { prices: FIRESTORE_REGIONAL_PRICE, days: realistic.map((day) => dayBill(costs, day, FIRESTORE_REGIONAL_PRICE)) };
  const storage = realistic.map((day) => storageBill(r.stored, day));
  const email = realistic.map((day) => ({
    subscribers: day.subscribers,
    emailsPerMonth: emailsPerMonth(day),
    resend: resendPerMonth(emailsPerMonth(day)),
  }));
  const total = realistic.map((day, i) => ({
    subscribers: day.subscribers,
    nam5: days[i].dollarsPerThousandSubscribersPerMonth + storage[i].dollarsPerThousandSubscribersPerMonth,
    regional: regional.days[i].dollarsPerThousandSubscribersPerMonth + storage[i].dollarsPerThousandSubscribersPerMonth,
  }));
  return {
    prices: FIRESTORE_LIST_PRICE,
    costs,
    days,
    regional,
    counted: countedOps(counted),
    rebuilt: rebuiltOps(costs, counted),
    stored: r.stored,
    storage,
    email,
    total,
  };
}

function printBill(r: ScoutResult, bill: BenchBill | null) {
  if (!bill) {
    console.log('\nthe realistic day’s bill: none');
    return;
  }
  const b = r.idle.body;
  const idleCounts = `${r.idle.total.reads} reads, ${r.idle.total.writes} writes, ${r.idle.total.roundTrips} round trips`;
  console.log(`\n${r.idle.label}, nothing new and nothing due: ${idleCounts} (not in the figures above)`);
  const channelMessages = b.channels ? b.channels.sent + b.channels.failed + b.channels.dead : 0;
  if (b.jobsNew > 0 || b.digests > 0 || b.instantEmails > 0 || channelMessages > 0)
    console.log(
      `note: the idle run was not idle (${b.jobsNew} new postings, ${b.digests} digests, ${b.instantEmails} alerts, ${channelMessages} channel messages settled): the bill below overstates a run`,
    );
  console.log(
    `\nFirestore bill of a realistic day (bill.ts): ${REALISTIC_DAY.runsPerDay} runs, J=${shape.postings.toLocaleString('en-US')} postings a day spread over them, ${REALISTIC_DAY.matchRate * 100}% of pairs matching, ${REALISTIC_DAY.instantShare * 100}% instant; ` +
      `costs per unit from this run's counts, at its own U; Standard edition, ${bill.prices.location} list price (reads $0.06, writes $0.18, deletes $0.02 per 100,000; TTL deletes billed as deletes; no free quota)\n`,
  );
  for (const line of billLines(bill.costs, bill.days)) console.log(line);
  const ops = (o: { reads: number; writes: number; deletes: number }) =>
    `${Math.round(o.reads).toLocaleString('en-US')} reads, ${Math.round(o.writes).toLocaleString('en-US')} writes, ${Math.round(o.deletes).toLocaleString('en-US')} deletes`;
  console.log(
    `check: the costs per unit, times this run's own postings, deliveries, alerts, digests and runs, give ${ops(bill.rebuilt)}; counted: ${ops(bill.counted)} (the TTL's deletes to come included)`,
  );
  console.log(`\nthe same days at ${bill.regional.prices.location} list price (reads $0.03, writes $0.09, deletes $0.01 per 100,000):\n`);
  for (const line of billLines(bill.costs, bill.regional.days, bill.regional.prices).slice(billLines(bill.costs, []).indexOf('') + 1))
    console.log(line);
  console.log(
    `\nstorage once the retention has filled (stored-bytes.ts: every document of the bench's store and its index entries, by Firestore's storage-size rules, under firestore.indexes.json; $${STORAGE_PRICE_PER_GIB_MONTH} per GiB a month):\n`,
  );
  for (const line of storageLines(
    bill.stored,
    bill.storage,
    bill.days.map((d) => d.day),
  ))
    console.log(line);
  console.log('\nthe realistic day’s email, a month of it, at the cheapest Resend plan (bill.ts):\n');
  console.log('| U | emails a month | plan | $ a month | $ per 1,000 subscribers a month |');
  console.log('| ---: | ---: | --- | ---: | ---: |');
  for (const e of bill.email)
    console.log(
      `| ${e.subscribers.toLocaleString('en-US')} | ${Math.round(e.emailsPerMonth).toLocaleString('en-US')} | ${e.resend.plan} | $${e.resend.dollars.toFixed(0)} | $${((e.resend.dollars * 1000) / e.subscribers).toFixed(2)} |`,
    );
  for (const t of bill.total)
    console.log(
      `Firestore, everything counted (operations, TTL deletes, storage), U=${t.subscribers.toLocaleString('en-US')}: $${t.nam5.toFixed(3)} (nam5), $${t.regional.toFixed(3)} (${bill.regional.prices.location}) per 1,000 subscribers a month (target ≤ $0.50 at us-central1)`,
    );
}

function printScout(r: ScoutResult, extras: BenchExtras) {
  const b = r.cycle.body;
  console.log(`\nseeded ${shape.subscribers.toLocaleString('en-US')} subscribers in ${(r.seedMs / 1000).toFixed(1)} s (not counted)`);
  console.log(
    `match index built by the repair sweep in ${r.sweep.runs} run(s), ${(r.sweep.ms / 1000).toFixed(1)} s: ${r.sweep.checked.toLocaleString('en-US')} subscribers checked, ${r.sweep.drift} drifted, ${r.sweep.reads.toLocaleString('en-US')} reads, ${r.sweep.writes.toLocaleString('en-US')} writes (not counted in the runs)\n`,
  );
  if (SHARDS > 1)
    console.log(
      `${SHARDS} shards called at once, each in its own process: a phase's wall time is the slowest shard's; store counts are all shards' together\n`,
    );
  console.log('| run | phase | wall time | reads | writes | round trips |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  const count = (n: number) => n.toLocaleString('en-US');
  // Every phase of the cycle, and of the runs after it (with spread digests, those are listed whole below).
  const phaseRows: [string, PhaseRow[]][] = [[runLabel(RUN_AT, 'cycle'), acrossShards(r.cyclePhases)]];
  if (r.flushes.length === 1) phaseRows.push([r.flushes[0].label, acrossShards(r.flushes[0].phases)]);
  for (const [label, rows] of phaseRows) {
    for (const p of rows)
      console.log(
        `| ${label} | ${p.phase} | ${(p.ms / 1000).toFixed(1)} s | ${count(p.reads)} | ${count(p.writes)} | ${count(p.roundTrips)} |`,
      );
  }
  for (const [label, run] of [[runLabel(RUN_AT, 'cycle'), r.cycle], ...r.flushes.map((f) => [f.label, f] as const)] as const) {
    console.log(
      `| ${label} | **total** | ${(run.ms / 1000).toFixed(1)} s | ${run.total.reads.toLocaleString('en-US')} | ${run.total.writes.toLocaleString('en-US')} | ${run.total.roundTrips.toLocaleString('en-US')} |`,
    );
  }
  printPerFlush(r);
  // Booked over every run: a cycle cut short by its budget finishes its claims and alerts in catch-ups.
  const work = bookedWork(r);
  const deliveries = work.deliveries;
  const alertsSent = work.alertsSent;
  const writes = r.cycle.total.writes + r.flush.total.writes;
  const reads = r.cycle.total.reads + r.flush.total.reads;
  // The slowest shard's fetch + match + claim (with one caller, simply the run's).
  const beforeDispatch = Math.max(
    ...Array.from({ length: SHARDS }, (_, shard) =>
      r.cyclePhases.filter((p) => p.shard === shard && !PLATFORM_BOUND.has(p.phase)).reduce((ms, p) => ms + p.ms, 0),
    ),
  );
  console.log(
    `\nmatches ${work.matches.toLocaleString('en-US')} · deliveries claimed ${deliveries.toLocaleString('en-US')} (instant ${work.instantDeliveries}, queued ${work.queued})${r.cycleCatchUps > 0 ? `, over the cycle and its ${r.cycleCatchUps} catch-up run(s)` : ''}`,
  );
  console.log(
    `emails: ${alertsSent} alerts + ${b.digests + r.flush.body.digests} digests sent (every run), ${r.received} received by the sink; provider requests ${b.providerRequests} + ${r.flush.body.providerRequests}`,
  );
  if (alertsSent + b.digests + r.flush.body.digests !== r.received)
    console.log(
      `note: the runs say ${alertsSent + b.digests + r.flush.body.digests} emails sent and the sink received ${r.received}: a figure divided by either is suspect`,
    );
  console.log(`cycle without the provider-bound dispatch: ${(beforeDispatch / 1000).toFixed(1)} s (target < 30 s)`);
  console.log(
    `reads ${reads.toLocaleString('en-US')} (all ${1 + r.flushes.length} runs) vs budget U + J + 2 × deliveries = ${(shape.subscribers + shape.postings + 2 * deliveries).toLocaleString('en-US')}`,
  );
  console.log(
    `writes per claimed delivery: ${(writes / Math.max(1, deliveries)).toFixed(2)} (target ≤ 2.0, every write of all ${1 + r.flushes.length} runs counted)`,
  );
  console.log(
    `Firestore at list price per million deliveries: $${firestoreDollarsPerMillion({ reads, writes, deliveries }).toFixed(2)} (Standard edition, nam5: reads $0.06, writes $0.18 per 100,000; no free tier)`,
  );
  const dispatch = acrossShards(r.cyclePhases).find((p) => p.phase === 'dispatch');
  if (dispatch && b.providerRequests > 0) {
    console.log(
      `dispatch: ${b.providerRequests} requests in ${(dispatch.ms / 1000).toFixed(1)} s = ${((b.providerRequests / dispatch.ms) * 1000).toFixed(2)} requests/s of ${RATE} allowed`,
    );
  }
  console.log(
    `the provider's count (the sink's): the cycle ${r.providerSaw.cycle.admitted} requests admitted, ${r.providerSaw.cycle.refused} refused with a 429; the runs after it ${r.providerSaw.flush.admitted} admitted, ${r.providerSaw.flush.refused} refused`,
  );
  // Everything the dispatch rows counted (the sender's work during the claim and the flush included), per email sent.
  const perEmail = (rows: PhaseRow[], emails: number, kind: string) => {
    const sending = rows.filter((p) => p.phase === 'dispatch');
    const reads = sending.reduce((n, p) => n + p.reads, 0);
    const writes = sending.reduce((n, p) => n + p.writes, 0);
    const outbox = sending.reduce((n, p) => n + (p.collections[COLLECTIONS.emails]?.writes ?? 0), 0);
    if (emails > 0)
      console.log(
        `dispatch of ${emails.toLocaleString('en-US')} ${kind}: ${(reads / emails).toFixed(2)} reads and ${(writes / emails).toFixed(2)} writes per email (target ≤ 1 and ≤ 1.5), of which outbox writes ${(outbox / emails).toFixed(2)}; the rest are the items' \`sent\` marks`,
      );
  };
  perEmail(r.cyclePhases, Number(b.instantEmails), 'alerts');
  perEmail(r.flushPhases, Number(r.flush.body.digests), 'digests');
  for (const line of perDeliveryLines(phasesPerDelivery(r))) console.log(line);
  if (r.channels) for (const line of channelLines(r.channels)) console.log(line);
  printFloorRatios(floorRatios(r, extras.floor), extras.floor);
  printBill(r, realisticBill(r));
}

/** Reads and writes per claimed delivery by phase (per-delivery.ts): the cycle, and the runs after it together. */
function phasesPerDelivery(r: ScoutResult) {
  const after = r.flushes.length === 1 ? r.flushes[0].label : `${r.flushes.length} runs after the cycle`;
  return perDelivery(
    [
      { run: runLabel(RUN_AT, 'cycle'), phases: r.cyclePhases, total: r.cycle.total },
      { run: after, phases: r.flushPhases, total: r.flush.total },
    ],
    bookedWork(r).deliveries,
  );
}

/**
 * Per run: the daily subscribers due (by their schedules, bench-world.ts), the digests it claimed,
 * and the reads and writes of its flush phase and of the whole run, each over the due subscribers.
 */
function printPerFlush(r: ScoutResult) {
  const digestSubscribers = Math.floor(shape.subscribers / 2);
  console.log(
    `\ndigests ${shape.digestWorld === 'spread' ? 'spread over the 24 hours of the UTC day' : 'all at 08:00 UTC'}: ${digestSubscribers.toLocaleString('en-US')} daily subscribers of ${shape.subscribers.toLocaleString('en-US')}` +
      (r.sentBefore > 0
        ? `, ${r.sentBefore.toLocaleString('en-US')} of whom had their current local period's digest sent before 06:00 (seeded)`
        : '') +
      '\n',
  );
  console.log(
    '| run (UTC) | due subscribers | digests claimed | flush reads | flush writes | flush reads ÷ due | run reads | run writes | run reads ÷ due |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const ratio = (reads: number, due: number) => (due === 0 ? '—' : (reads / due).toFixed(2));
  for (const f of perFlush(r))
    console.log(
      `| ${f.label} | ${f.due.toLocaleString('en-US')} | ${f.digests.toLocaleString('en-US')} | ${f.flush.reads.toLocaleString('en-US')} | ${f.flush.writes.toLocaleString('en-US')} | ${ratio(f.flush.reads, f.due)} | ${f.run.reads.toLocaleString('en-US')} | ${f.run.writes.toLocaleString('en-US')} | ${ratio(f.run.reads, f.due)} |`,
    );
  const mismatched = perFlush(r).filter((f) => f.due !== f.digests);
  if (mismatched.length > 0)
    console.log(
      `note: digests claimed differ from the subscribers due in ${mismatched.map((f) => f.label).join(', ')} (a truncated or raced flush?)`,
    );
}

/** The bench's own day at list price (bill.ts), every write (deletes included) priced as a write, as this figure always was. */
const firestoreDollarsPerMillion = (input: { reads: number; writes: number; deliveries: number }) =>
  ((input.reads * FIRESTORE_LIST_PRICE.read + input.writes * FIRESTORE_LIST_PRICE.write) / Math.max(1, input.deliveries)) * 1_000_000;

/** With several shards: each shard process's peak RSS over the day's runs, in MB. Null with one caller. */
function shardPeakRssMb(r: ScoutResult): number[] | null {
  if (SHARDS === 1) return null;
  const runs = [r.cycle, ...r.flushes, r.idle];
  return Array.from({ length: SHARDS }, (_, shard) =>
    Math.max(...runs.flatMap((run) => run.shards.filter((a) => a.shard === shard).map((a) => a.peakRssMb))),
  );
}

/** With several shards: per run, each shard's call against the platform's 300 s wall. */
function printShards(r: ScoutResult) {
  const runs = [{ label: runLabel(RUN_AT, 'cycle'), ...r.cycle }, ...r.flushes, r.idle];
  console.log(`\neach shard's call of each run (the platform's wall: 300 s; RUN_BUDGET_MS 280 s):\n`);
  console.log(`| run | ${Array.from({ length: SHARDS }, (_, k) => `shard ${k}`).join(' | ')} |`);
  console.log(`| --- | ${Array.from({ length: SHARDS }, () => '---').join(' | ')} |`);
  for (const run of runs)
    console.log(
      `| ${run.label} | ${run.shards.map((a) => `${(a.durationMs / 1000).toFixed(1)} s${a.partial ? ' (partial)' : ''}`).join(' | ')} |`,
    );
  const longest = Math.max(...runs.flatMap((run) => run.shards.map((a) => a.durationMs)));
  console.log(`longest shard call: ${(longest / 1000).toFixed(1)} s (wall 300 s)`);
}

/** The time the shards took over these rows: the slowest shard's own total (with one caller, the rows' total). */
function slowestShardMs(rows: PhaseRow[]): number {
  const byShard = new Map<number, number>();
  for (const row of rows) byShard.set(row.shard, (byShard.get(row.shard) ?? 0) + row.ms);
  return Math.max(0, ...byShard.values());
}

/** Per phase, one row for all shards: their counts added up, the slowest shard's time (with one caller, the rows as they are). */
function acrossShards(rows: PhaseRow[]): PhaseRow[] {
  const phases = new Map<CyclePhase, PhaseRow[]>();
  for (const row of rows) phases.set(row.phase, [...(phases.get(row.phase) ?? []), row]);
  return [...phases].map(([phase, of]) => ({
    phase,
    shard: -1,
    ms: slowestShardMs(of),
    ...of.reduce((sum, p) => addCounts(sum, p), { reads: 0, writes: 0, roundTrips: 0 }),
    collections: of.reduce((sum, p) => addByCollection(sum, p.collections), {} as CountsByCollection),
  }));
}

/** The shards' answers as one run's: their counts added up, partial if any shard's was, the longest duration. */
function sumOfRuns(bodies: RunAnswer[]): RunAnswer {
  const sum: Record<string, unknown> = { ...bodies[0] };
  for (const body of bodies.slice(1))
    for (const [key, value] of Object.entries(body)) if (typeof value === 'number') sum[key] = Number(sum[key] ?? 0) + value;
  return {
    ...(sum as RunAnswer),
    partial: bodies.some((b) => Boolean(b.partial)),
    durationMs: Math.max(...bodies.map((b) => Number(b.durationMs ?? 0))),
  };
}

async function benchNaive(input: { sink: SinkProcess; feeds: FeedServer; emulatorHost: string; counter: FirestoreCounter }) {
  const projectId = `bench-naive-${randomBytes(3).toString('hex')}`;
  await clearEmulatorProject(input.emulatorHost, projectId);
  const apiKey = `re_bench_naive_${projectId}`;
  const deps = benchDeps(benchEnv({ ...input, projectId, apiKey }), benchTuning());
  await input.sink.setFaults(apiKey, { ratePerSec: RATE });
  const now = new Date(RUN_AT);
  await seedSubscribers(deps.db, shape, now, INDEX_SHARDS);
  const postings = parseFeed(rssFeed(benchPostings(shape, now)), { source: 'bench', baseUrl: input.feeds.url });
  await storeNewPostings(deps.db, { postings, now, runId: 'naive-seed', retentionDays: 30, maxNew: postings.length, label: 'bench' });
  input.counter.reset();
  const started = Date.now();
  const result = await runNaiveCycle(
    { db: deps.db, mailer: deps.mailer },
    { postings, now, runId: 'naive', fromAddress: deps.config.MAIL_FROM, sendLimit: Number(values['naive-send-limit']) },
  );
  return { ...result, ms: Date.now() - started, counts: input.counter.snapshot() };
}

function summarizeNaive(n: Awaited<ReturnType<typeof benchNaive>>, scout: ScoutResult): BenchNaive {
  const sendPerEmailMs = n.phases.sendMs / Math.max(1, n.emails);
  const extrapolatedSendMs = sendPerEmailMs * (n.emails + (n.emailsSkipped ?? 0));
  const totalMs = n.phases.matchMs + n.phases.claimMs + extrapolatedSendMs;
  const scoutMs = scout.cycle.ms + scout.flush.ms;
  const scoutTrips = scout.cycle.total.roundTrips + scout.flush.total.roundTrips;
  return {
    ...n.phases,
    extrapolatedSendMs,
    totalMs,
    candidates: n.candidates,
    deliveriesWritten: n.deliveriesWritten,
    emailsSent: n.emails,
    emailsSkipped: n.emailsSkipped ?? 0,
    providerRequests: n.providerRequests,
    ...n.counts,
    speedup: totalMs / scoutMs,
    roundTripRatio: n.counts.roundTrips / Math.max(1, scoutTrips),
  };
}

function printNaive(n: BenchNaive, scout: ScoutResult) {
  const scoutMs = scout.cycle.ms + scout.flush.ms;
  const scoutTrips = scout.cycle.total.roundTrips + scout.flush.total.roundTrips;
  console.log('\n| naive baseline (same data) | value |');
  console.log('| --- | --- |');
  console.log(`| match (users × postings loop) | ${(n.matchMs / 1000).toFixed(1)} s, ${n.candidates.toLocaleString('en-US')} candidates |`);
  console.log(
    `| claim (get + write per candidate) | ${(n.claimMs / 1000).toFixed(1)} s, ${n.deliveriesWritten.toLocaleString('en-US')} deliveries |`,
  );
  console.log(
    `| send (one request per email) | ${n.emailsSent} sent in ${(n.sendMs / 1000).toFixed(1)} s; ${n.emailsSkipped} more extrapolated → ${(n.extrapolatedSendMs / 1000).toFixed(0)} s |`,
  );
  console.log(
    `| Firestore | ${n.reads.toLocaleString('en-US')} reads, ${n.writes.toLocaleString('en-US')} writes, ${n.roundTrips.toLocaleString('en-US')} round trips |`,
  );
  console.log(
    `\nScout vs naive: ${n.speedup.toFixed(1)}× faster (${(scoutMs / 1000).toFixed(1)} s vs ${(n.totalMs / 1000).toFixed(0)} s), round trips 1/${n.roundTripRatio.toFixed(0)} (${scoutTrips.toLocaleString('en-US')} vs ${n.roundTrips.toLocaleString('en-US')})`,
  );
}

function benchResult(input: {
  scout: ScoutResult;
  peakRssMb: number;
  naive: BenchNaive | null;
  emulatorPort: number;
  emulatorShared: boolean;
  extras: BenchExtras;
}): BenchResult {
  const { scout: r } = input;
  const b = r.cycle.body;
  const f = r.flush.body;
  const work = bookedWork(r);
  const rows = (run: BenchRun, phases: PhaseRow[]): BenchPhaseRow[] => phases.map(({ collections: _, ...p }) => ({ run, ...p }));
  const total = (run: Pick<RunCounts, 'ms' | 'total'>) => ({ ms: run.ms, ...run.total });
  return {
    version: 1,
    finishedAt: new Date().toISOString(),
    args: process.argv.slice(2),
    shape: { U: shape.subscribers, J: shape.postings, matchRate: shape.matchRate },
    providerRatePerSec: RATE,
    emulatorPort: input.emulatorPort,
    emulatorShared: input.emulatorShared,
    seedMs: r.seedMs,
    matchIndexSweep: r.sweep,
    digestWorld: shape.digestWorld,
    phases: [...rows(runLabel(RUN_AT, 'cycle'), r.cyclePhases), ...r.flushes.flatMap((f) => rows(f.label, f.phases))],
    flushes: perFlush(r).map((f) => ({ run: f.label, due: f.due, digests: f.digests, flush: f.flush, total: f.run })),
    totals: {
      cycle: total(r.cycle),
      flush: total(r.flush),
      both: {
        ms: r.cycle.ms + r.flush.ms,
        reads: r.cycle.total.reads + r.flush.total.reads,
        writes: r.cycle.total.writes + r.flush.total.writes,
        roundTrips: r.cycle.total.roundTrips + r.flush.total.roundTrips,
      },
    },
    matches: work.matches,
    deliveriesClaimed: work.deliveries,
    instantDeliveries: work.instantDeliveries,
    queued: work.queued,
    emails: {
      alerts: work.alertsSent,
      digests: b.digests + f.digests,
      receivedBySink: r.received,
    },
    providerRequests: { cycle: b.providerRequests, flush: f.providerRequests, total: b.providerRequests + f.providerRequests },
    providerSaw: r.providerSaw,
    partial: { cycle: Boolean(b.partial), flush: Boolean(f.partial) },
    failures: (b.failures ?? 0) + (f.failures ?? 0),
    peakRssMb: Math.round(input.peakRssMb * 10) / 10,
    shards:
      SHARDS === 1
        ? null
        : {
            count: SHARDS,
            peakRssMb: shardPeakRssMb(r) ?? [],
            runs: [{ label: runLabel(RUN_AT, 'cycle'), ...r.cycle }, ...r.flushes, r.idle].map((run) => ({
              run: run.label,
              calls: run.shards.map(({ peakRssMb: _, ...call }) => call),
            })),
          },
    naive: input.naive,
    floor: { ...input.extras.floor, ratios: floorRatios(r, input.extras.floor) },
    render: input.extras.render,
    bill: realisticBill(r),
    perDelivery: phasesPerDelivery(r),
    channels: r.channels,
  };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
