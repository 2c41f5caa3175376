import { randomBytes } from 'node:crypto';
import { describe, it, beforeAll } from 'vitest';
import { InjectedCrash, noFailpoints, type Failpoint, type FailpointName } from '../../lib/runtime/failpoints';
import { addDays, utcDay } from '../../lib/store/timestamps';
import { nextDigestSlot, WEEKDAYS, type DigestSchedule, type Weekday } from '../../lib/subscribers/digest-schedule';
import { digestScheduleOf, subscribersCollection } from '../../lib/subscribers/subscriber';
import { deliveriesCollection, deliveryId } from '../../lib/ledger/delivery';
import { matchRef } from '../../lib/verdicts/match-verdict';
import { PROMPT_VERSION } from '../../lib/verdicts/wire';
import { isAlreadyExists } from '../../lib/store/firestore-errors';
import { startModelFake, type ModelFake, type ModelFault } from '../../scripts/model-fake/server';
import type { TestItem } from '../../scripts/sample-feed/rss-feed';
import type { SubscriberInput } from '../../lib/subscribers/subscriber';
import { createHarness, type Harness } from '../support/harness';
import { checkDeliveries } from '../support/queue-checker';
import { checkVerdicts } from '../support/verdict-checker';
import { checkCanonicalJobs } from '../support/canonical-checker';
import { runCycle } from '../../lib/cycle/run-cycle';
import { rssFeed } from '../../scripts/sample-feed/rss-feed';
import { seededRandom } from '../support/seeded-random';

/**
 * The randomized fault suite: many cycles over random subscribers and postings, with random
 * crashes at the cycle's failure points, random provider faults and 1–8 overlapping invocations
 * (some through the lock, some with it defeated), then clean settle runs. What the mail sink
 * received is then checked like a queue: no duplicate, nothing lost without a visible state.
 *
 * Two worlds soak side by side from the same seed: keywords alone (the default), and one with the
 * AI verdict stage on, where the model fake also fails at random every tick — slow past
 * AI_TIMEOUT_MS, 500, 429 with a short or a long Retry-After, malformed JSON, a refusal, a dropped
 * connection — and where runs also crash between a stored verdict and the claim it decided. That
 * world is checked twice: like a queue, and for the verdicts (test/support/verdict-checker.ts).
 *
 * A third world publishes its jobs on two boards: each job on one board or both, under
 * other guids and links that differ only by tracking parameters, sometimes on the second board
 * ticks later; some are reposted on a later tick under a new guid, same text, budget raised. It is
 * checked like a queue by email, and by JOB (test/support/canonical-checker.ts): each subscriber
 * gets each job at most once whichever copy or repost carried it, and every due pair arrives.
 *
 * A fourth world gives each subscriber their own cadence and schedule: instant, daily on
 * some weekdays, or weekly, at a local hour in New York, Berlin, Lord Howe, Kolkata or UTC. It
 * starts a few hours before a daylight-saving change the seed picks, and its clock leaps to a
 * minute before, onto, or a minute after some subscriber's next local digest hour, and sometimes
 * runs a tick's batch twice at the same instant. Its queue checker judges what was due by each
 * subscriber's schedule (a weekly item by its weekly slot), and flags a digest claimed off it.
 *
 *   SCOUT_CHAOS_SEED=1234 npm test -- chaos    replay one seed
 *   npm run test:chaos                         the long soak: 60 ticks, and more until 300 invocations
 */
const seed = Number(process.env.SCOUT_CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ticks = Number(process.env.SCOUT_CHAOS_TICKS ?? 10);
/** The soak keeps ticking past `ticks` until this many invocations have run (each tick runs 1–8). */
const minInvocations = Number(process.env.SCOUT_CHAOS_MIN_INVOCATIONS ?? 0);

const KEYWORDS = ['react', 'python', 'firestore', 'django', 'figma', 'rust'] as const;
const POINTS: FailpointName[] = [
  'after-postings-stored',
  'after-claim',
  'after-digest-claim',
  'before-send',
  'after-send',
  'before-record',
  'before-digest-marks',
];
/** With a model, also between the verdicts and the claim they decided: the next run must reuse them, never ask again. */
const MODEL_POINTS: FailpointName[] = [...POINTS, 'before-delivery-commit', 'before-digest-commit'];
/** Words the model world's postings and "about" texts share, so the fake's fits spread from 0 to 100. */
const FLAVOURS = ['remote', 'contract', 'senior', 'startup'] as const;
/**
 * Far above a loopback answer, so a fault-free answer is never cut short (the verdict checker
 * counts every fault-free request as an answer); `slow` faults always outlast it.
 */
const AI_TIMEOUT_MS = 2_000;

type Random = ReturnType<typeof seededRandom>;
type ModelWorld = { fake: ModelFake; apiKey: string };
type World = {
  random: Random;
  h: Harness;
  subscribers: { uid: string; keywords: string[] }[];
  feed: TestItem[];
  postingSeq: number;
  model: ModelWorld | null;
  points: FailpointName[];
  /** The copies world publishes on its own two boards; the other worlds on the harness's one feed (addPostings). */
  boards?: Boards;
  /** The schedules world: where its clock starts, and its digest subscribers' schedules. */
  schedules?: Schedules;
};

beforeAll(() => {
  console.log(
    `chaos seed ${seed}, ${ticks} ticks (replay: SCOUT_CHAOS_SEED=${seed} SCOUT_CHAOS_TICKS=${ticks} SCOUT_CHAOS_MIN_INVOCATIONS=${minInvocations})`,
  );
});

/**
 * A world's subscribers. The keyword world draws exactly what it always drew, so an old seed
 * replays; the model world (its own stream) adds an "about" and a fit threshold, and keeps every
 * profile distinct, since a model request names its subscriber by profile alone.
 */
async function createWorld(random: Random, model: ModelWorld | null): Promise<World> {
  const h = await createHarness(
    {
      SEND_RATE_PER_SEC: '100',
      ...(model && { AI_BASE_URL: model.fake.baseUrl, AI_API_KEY: model.apiKey, AI_MODEL: 'scout-fake-1' }),
    },
    {
      SEND_MAX_ATTEMPTS: 8,
      LOCK_TTL_MS: 10 * 60_000,
      // A low per-run cap: one posting a request, so a digest flush takes several calls, and the cap trips mid-run.
      ...(model && { AI_TIMEOUT_MS, AI_MAX_CALLS_PER_RUN: 8 }),
    },
  );
  const count = random.int(6, 12);
  const profiles = new Set<string>();
  const subscribers: World['subscribers'] = [];
  for (let i = 0; i < count; i++) {
    const input: SubscriberInput = model
      ? modelSubscriber(random, `ai.sub${i}@example.com`, profiles)
      : {
          email: `sub${i}@example.com`,
          keywords: [...new Set([random.pick(KEYWORDS), random.pick(KEYWORDS)])],
          mode: random.chance(0.5) ? 'instant' : 'daily',
        };
    subscribers.push({ uid: await h.subscribe(input), keywords: input.keywords ?? [] });
  }
  return { random, h, subscribers, feed: [], postingSeq: 0, model, points: model ? MODEL_POINTS : POINTS };
}

/** Up to two of the FLAVOURS words. */
const flavours = (random: Random) => [...new Set([random.pick(FLAVOURS), random.pick(FLAVOURS)])].slice(0, random.int(0, 2));

/** A model world's subscriber: keywords, an "about" and a threshold, drawn again until the profile is new. */
function modelSubscriber(random: Random, email: string, profiles: Set<string>): SubscriberInput {
  for (;;) {
    const keywords = [...new Set([random.pick(KEYWORDS), random.pick(KEYWORDS)])];
    const about = flavours(random).join(' ');
    const mode = random.chance(0.5) ? 'instant' : 'daily';
    const fitThreshold = random.pick([25, 40, 50, 60]);
    const profile = JSON.stringify([keywords, about]);
    if (profiles.has(profile)) continue;
    profiles.add(profile);
    return { email, keywords, mode, about, fitThreshold };
  }
}

function addPostings(world: World, now: Date) {
  const { random } = world;
  const count = random.int(0, 4);
  for (let i = 0; i < count; i++) {
    const keyword = random.pick(KEYWORDS);
    world.postingSeq += 1;
    const n = world.postingSeq;
    const flavour = world.model ? ` ${flavours(random).join(', ')}` : '';
    world.feed.push({
      guid: `chaos-${n}`,
      title: `${keyword} role ${n}`,
      link: `https://jobs.example.com/chaos/${n}`,
      description: `Work with ${keyword}.${flavour}`,
      pubDate: new Date(now.getTime() - 60_000).toUTCString(),
    });
  }
  // Feeds also repeat and reorder items; the ledger must not care.
  world.h.serveFeed(random.chance(0.3) ? [...world.feed].reverse() : world.feed);
}

// ── The copies world: one job, several listings ─────────────────────────────────────────

type Board = 'board-a' | 'board-b';
const BOARDS: Board[] = ['board-a', 'board-b'];
/** Long enough (with no company) for the fingerprint to name the job, and free of every other KEYWORDS word. */
const COPY_TEXT =
  'on a long running product for a small distributed team. You pair with the founders, write tests and ship every week from anywhere.';
type BoardJob = {
  n: number;
  keyword: string;
  /** What the job pays now: a repost raises it, and a board listing the job later lists it at this. */
  budget: number | null;
  firstBudget: number | null;
  listings: Partial<Record<Board, TestItem>>;
  /** The second board lists it from this tick on. */
  later: { board: Board; tick: number } | null;
  firstTick: number;
  reposted: boolean;
};
type Boards = {
  jobs: BoardJob[];
  tick: number;
  copies: number;
  reposts: number;
  minBudgets: Map<string, number | null>;
  serve(board: Board, items: TestItem[]): void;
};

/** Pairs only a raise made due (the subscriber's minimum above the first budget, met by the last): proof the soak reached the case. */
const raiseOnlyPairs = (world: World, boards: Boards) =>
  boards.jobs.reduce(
    (n, job) =>
      n +
      world.subscribers.filter((s) => {
        const min = boards.minBudgets.get(s.uid) ?? null;
        return s.keywords.includes(job.keyword) && min !== null && job.firstBudget !== null && job.firstBudget < min && job.budget! >= min;
      }).length,
    0,
  );

/** Each board's own link to the job: the same page, with the board's tracking on it. */
const boardLink = (board: Board, n: number) =>
  board === 'board-a'
    ? `https://www.jobs.example.com/chaos/${n}?utm_source=board-a&utm_medium=rss`
    : `https://jobs.example.com/chaos/${n}/?ref=board-b`;

const boardItem = (job: BoardJob, guid: string, link: string, now: Date): TestItem => ({
  guid,
  title: `${job.keyword} role ${job.n}`,
  link,
  description: `<p>Work with ${job.keyword} ${COPY_TEXT}</p>${job.budget === null ? '' : `<p><b>Budget</b>: $${job.budget}</p>`}`,
  pubDate: new Date(now.getTime() - 60_000).toUTCString(),
});

/**
 * A world whose harness reads two boards (two FEED_URLS sources on its feed server) instead of
 * /jobs.xml, and whose subscribers may have a minimum budget, so a raised budget reaches new ones.
 * Its own random stream from the seed: the other worlds' draws stay as they were.
 */
async function createCopiesWorld(random: Random): Promise<World> {
  const base = await createHarness({ SEND_RATE_PER_SEC: '100' }, { SEND_MAX_ATTEMPTS: 8, LOCK_TTL_MS: 10 * 60_000 });
  // Two sources on the one sample server, told apart on the card by their host.
  const url = (board: Board, host: string) => `http://${host}:${base.feeds.port}/${board}.xml`;
  const config = { ...base.config, FEED_URLS: `board-a=${url('board-a', 'localhost')}, board-b=${url('board-b', '127.0.0.1')}` };
  const h: Harness = {
    ...base,
    config,
    run: (options) =>
      runCycle(
        { ...base.deps, config, failpoint: options.failpoint ?? noFailpoints },
        { now: new Date(options.now), dryRun: false, trigger: 'test', lockName: options.lockName, shard: options.shard },
      ),
  };
  const serve = (board: Board, items: TestItem[]) =>
    base.feeds.setFeed(`/${board}.xml`, { body: rssFeed(items), contentType: 'application/rss+xml' });
  BOARDS.forEach((board) => serve(board, []));
  const count = random.int(6, 12);
  const subscribers: World['subscribers'] = [];
  const minBudgets = new Map<string, number | null>();
  for (let i = 0; i < count; i++) {
    const minBudget = random.pick([null, null, 300, 500, 800] as const);
    const input: SubscriberInput = {
      email: `copies.sub${i}@example.com`,
      keywords: [...new Set([random.pick(KEYWORDS), random.pick(KEYWORDS)])],
      mode: random.chance(0.5) ? 'instant' : 'daily',
      ...(minBudget !== null && { minBudget }),
    };
    const uid = await h.subscribe(input);
    subscribers.push({ uid, keywords: input.keywords ?? [] });
    minBudgets.set(uid, minBudget);
  }
  const boards: Boards = { jobs: [], tick: 0, copies: 0, reposts: 0, minBudgets, serve };
  return { random, h, subscribers, feed: [], postingSeq: 0, model: null, points: POINTS, boards };
}

/**
 * One tick of the two boards: some listed jobs are reposted (new guid, same text, budget raised;
 * on the board that reposts it, the new listing replaces the old), jobs due on their second board
 * appear there, and 0–3 new jobs are listed on one board, both, or one now and the other later.
 * Budgets only ever rise (a later listing carries the budget of its day; a job without a budget
 * is reposted without one): the canonical checker's expectation rests on it.
 */
function publishOnBoards(world: World, boards: Boards, now: Date) {
  const { random } = world;
  boards.tick += 1;
  const tick = boards.tick;
  for (const job of boards.jobs) {
    if (job.reposted || job.firstTick >= tick || !random.chance(0.12)) continue;
    const board = random.pick(BOARDS.filter((b) => job.listings[b]));
    job.reposted = true;
    if (job.budget !== null) job.budget += random.pick([200, 300, 500]);
    // The repost's link: the same page under other tracking, or a new page (then only the text says it is this job).
    const link = random.chance(0.5)
      ? `https://jobs.example.com/chaos/${job.n}?utm_campaign=repost`
      : `https://jobs.example.com/chaos/${job.n}-reposted`;
    job.listings[board] = boardItem(job, `${board}-${job.n}-repost`, link, now);
    boards.reposts += 1;
  }
  for (const job of boards.jobs) {
    if (!job.later || job.later.tick > tick) continue;
    job.listings[job.later.board] = boardItem(job, `${job.later.board}-${job.n}`, boardLink(job.later.board, job.n), now);
    job.later = null;
    boards.copies += 1;
  }
  for (let i = random.int(0, 3); i > 0; i--) {
    world.postingSeq += 1;
    const job: BoardJob = {
      n: world.postingSeq,
      keyword: random.pick(KEYWORDS),
      budget: null,
      firstBudget: random.pick([null, 200, 400, 600]),
      listings: {},
      later: null,
      firstTick: tick,
      reposted: false,
    };
    job.budget = job.firstBudget;
    const placement = random.pick(['one', 'both', 'later'] as const);
    const [first, second] = random.chance(0.5) ? BOARDS : [...BOARDS].reverse();
    job.listings[first] = boardItem(job, `${first}-${job.n}`, boardLink(first, job.n), now);
    if (placement === 'both') {
      job.listings[second] = boardItem(job, `${second}-${job.n}`, boardLink(second, job.n), now);
      boards.copies += 1;
    }
    if (placement === 'later') job.later = { board: second, tick: tick + random.int(1, 3) };
    boards.jobs.push(job);
  }
  for (const board of BOARDS) {
    const items = boards.jobs.flatMap((job) => job.listings[board] ?? []);
    boards.serve(board, random.chance(0.3) ? items.reverse() : items);
  }
}

// ── The schedules world: each subscriber's own zone, hour, weekdays and cadence ─────────

const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kolkata', 'UTC'] as const;
/**
 * The daylight-saving changes the schedules world may start before (the seed picks one), with the
 * local hour they skip or repeat: two of its subscribers have their digest at that hour in that zone.
 */
const CLOCK_CHANGES = [
  { zone: 'Europe/Berlin', at: '2026-10-25T01:00:00Z', hour: 2, what: 'Berlin falls back (02:00–03:00 twice)' },
  { zone: 'America/New_York', at: '2026-11-01T06:00:00Z', hour: 1, what: 'New York falls back (01:00–02:00 twice)' },
  { zone: 'Australia/Lord_Howe', at: '2026-10-03T15:30:00Z', hour: 2, what: 'Lord Howe springs forward half an hour (no 02:00–02:30)' },
  { zone: 'America/New_York', at: '2027-03-14T07:00:00Z', hour: 2, what: 'New York springs forward (no 02:00–03:00)' },
  { zone: 'Europe/Berlin', at: '2027-03-28T01:00:00Z', hour: 2, what: 'Berlin springs forward (no 02:00–03:00)' },
  { zone: 'Australia/Lord_Howe', at: '2027-04-03T15:00:00Z', hour: 1, what: 'Lord Howe falls back half an hour (01:30–02:00 twice)' },
] as const;
type Schedules = {
  start: Date;
  change: (typeof CLOCK_CHANGES)[number];
  digest: { uid: string; schedule: DigestSchedule }[];
  modes: Record<string, number>;
};

/**
 * Subscribers of every cadence in five zones, at random local hours (often the small hours a
 * daylight-saving change moves), on random weekdays; the first two (one daily, one weekly on the
 * change's Sunday) at the hour the change skips or repeats. Its own random stream from the seed.
 */
async function createSchedulesWorld(random: Random): Promise<World> {
  const h = await createHarness({ SEND_RATE_PER_SEC: '100' }, { SEND_MAX_ATTEMPTS: 8, LOCK_TTL_MS: 10 * 60_000 });
  const change = random.pick(CLOCK_CHANGES);
  const start = new Date(new Date(change.at).getTime() - random.int(2, 10) * 3_600_000);
  const count = random.int(8, 14);
  const subscribers: World['subscribers'] = [];
  const digest: Schedules['digest'] = [];
  const modes: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    const keywords = [...new Set([random.pick(KEYWORDS), random.pick(KEYWORDS)])];
    const mode = i === 0 ? 'daily' : i === 1 ? 'weekly' : random.pick(['instant', 'daily', 'daily', 'weekly'] as const);
    const input: SubscriberInput = {
      email: `zones.sub${i}@example.com`,
      keywords,
      mode,
      timezone: i < 2 ? change.zone : random.pick(ZONES),
      digestHour: i < 2 ? change.hour : random.chance(0.3) ? random.int(0, 3) : random.int(0, 23),
      weekdays: random.chance(0.5) ? [...WEEKDAYS] : someWeekdays(random),
      weeklyDay: i === 1 ? 'sun' : random.pick(WEEKDAYS),
    };
    const uid = await h.subscribe(input);
    subscribers.push({ uid, keywords });
    modes[`${mode} ${input.timezone}`] = (modes[`${mode} ${input.timezone}`] ?? 0) + 1;
    const schedule = digestScheduleOf((await subscribersCollection(h.db).doc(uid).get()).data()!, h.config.DIGEST_HOUR_UTC);
    if (schedule) digest.push({ uid, schedule });
  }
  return { random, h, subscribers, feed: [], postingSeq: 0, model: null, points: POINTS, schedules: { start, change, digest, modes } };
}

/** One to six weekdays, in calendar order. */
function someWeekdays(random: Random): Weekday[] {
  const days = WEEKDAYS.filter(() => random.chance(0.5));
  return days.length > 0 ? days : [random.pick(WEEKDAYS)];
}

/**
 * The schedules world's next tick: half the time a minute before, onto, or a minute after some
 * digest subscriber's next local hour (when it is within a day), else 15–180 minutes on.
 */
function leapAroundSlots(world: World, schedules: Schedules, now: Date): Date {
  const { random } = world;
  if (random.chance(0.5)) {
    const { schedule } = random.pick(schedules.digest);
    const slot = nextDigestSlot(schedule, now).getTime() + random.pick([-60_000, 0, 0, 60_000]);
    if (slot - now.getTime() <= 26 * 3_600_000) return new Date(Math.max(slot, now.getTime() + 60_000));
  }
  return new Date(now.getTime() + random.int(15, 180) * 60_000);
}

/**
 * Settle runs for the schedules world: half an hour and three hours on (leases and locks long
 * expired), then at each digest subscriber's next local hour after that — up to a week away for a
 * weekly one — and an hour after the last: every item queued during the soak is then due.
 */
function settleOnSlots(schedules: Schedules, now: Date): Date[] {
  const quiet = new Date(now.getTime() + 3 * 3_600_000);
  const slots = [...new Set(schedules.digest.map(({ schedule }) => nextDigestSlot(schedule, quiet).getTime()))].sort((a, b) => a - b);
  return [new Date(now.getTime() + 30 * 60_000), quiet, ...slots.map((t) => new Date(t)), new Date(slots.at(-1)! + 3_600_000)];
}

function randomFaults(random: Random) {
  const roll = random.next();
  if (roll < 0.35) return {};
  if (roll < 0.55) return { failNext: { count: random.int(1, 3), status: random.pick([500, 502, 503]) } };
  if (roll < 0.7) return { failNext: { count: random.int(1, 2), status: 429, name: 'rate_limit_exceeded' } };
  if (roll < 0.85) return { dropAfterAccept: random.int(1, 2) };
  return { latencyMs: random.int(20, 200) };
}

/**
 * The model's faults for one tick, replacing the last tick's: one or two of the six modes, each for
 * the next 1–3 requests. A 429's Retry-After is short (waited out and retried within the run) or
 * past the 30 s the stage ever waits (keywords decide at once).
 */
function randomModelFaults(random: Random): ModelFault[] {
  if (random.chance(0.4)) return [];
  return Array.from({ length: random.int(1, 2) }, (): ModelFault => {
    const count = random.int(1, 3);
    const mode = random.pick(['slow', '500', '429', 'malformed', 'refusal', 'drop'] as const);
    if (mode === 'slow') return { mode, ms: AI_TIMEOUT_MS + random.int(200, 800), count };
    if (mode === '429') return { mode, retryAfterSeconds: random.chance(0.5) ? random.int(0, 1) : random.int(31, 300), count };
    return { mode, count };
  });
}

/**
 * A claim a run left behind when it died between taking a pair and hearing the model: written on a
 * random queued pair (a daily digest's item, judged at the flush), its lease long run out. The
 * flush that judges the pair takes it over; one whose pair no run judges again stays, expired.
 */
async function plantDeadClaim(world: World, now: Date): Promise<boolean> {
  const queued = (await deliveriesCollection(world.h.db).where('status', '==', 'queued').get()).docs.map((d) => d.data());
  if (queued.length === 0) return false;
  const { uid, jobId } = world.random.pick(queued.sort((a, b) => `${a.uid}${a.jobId}`.localeCompare(`${b.uid}${b.jobId}`)));
  try {
    await matchRef(world.h.db, uid, jobId).create({
      uid,
      jobId,
      state: 'scoring',
      fit: null,
      reason: null,
      model: 'scout-fake-1',
      promptVersion: PROMPT_VERSION,
      profileVersion: 1,
      leaseUntil: new Date(now.getTime() - 60_000),
      runId: `dead-run-${now.toISOString()}`,
      createdAt: new Date(now.getTime() - 120_000),
      scoredAt: null,
      expireAt: addDays(now, 30),
    });
    return true;
  } catch (error) {
    if (isAlreadyExists(error)) return false; // judged already: a verdict (or a live claim) is there
    throw error;
  }
}

function crashOnceAt(point: FailpointName, counter: { crashes: number }): Failpoint {
  let fired = false;
  return async (name) => {
    if (fired || name !== point) return;
    fired = true;
    counter.crashes += 1;
    throw new InjectedCrash(name);
  };
}

/** Ticks of random faults and overlapping runs, then clean settle runs; returns what was injected and when the last run ran. */
async function soak(world: World) {
  const { random, h, model } = world;
  let now = world.schedules?.start ?? new Date('2026-11-30T06:00:00Z');
  const injected = {
    crashes: 0,
    providerFaults: 0,
    invocations: 0,
    modelFaultWindows: 0,
    /** Requests each model fault mode was set to meet (some go unmet: a tick's faults are replaced by the next's). */
    modelFaults: {} as Record<string, number>,
    deadClaims: 0,
  };
  let tick = 0;
  for (; tick < ticks || injected.invocations < minInvocations; tick++) {
    if (world.boards) publishOnBoards(world, world.boards, now);
    else addPostings(world, now);
    const faults = randomFaults(random);
    if (Object.keys(faults).length > 0) injected.providerFaults += 1;
    await h.setFaults(faults);
    if (model) {
      const modelFaults = randomModelFaults(random);
      if (modelFaults.length > 0) injected.modelFaultWindows += 1;
      for (const f of modelFaults) injected.modelFaults[f.mode] = (injected.modelFaults[f.mode] ?? 0) + (f.count ?? 1);
      model.fake.setFaults(model.apiKey, modelFaults);
      if (random.chance(0.25) && (await plantDeadClaim(world, now))) injected.deadClaims += 1;
    }
    const concurrency = random.int(1, 8);
    const defeatLock = random.chance(0.4);
    const runs = Array.from({ length: concurrency }, (_, i) => {
      const failpoint = random.chance(0.35) ? crashOnceAt(random.pick(world.points), injected) : undefined;
      // Sharded and unsharded callers mixed, with shard counts that disagree: the ledger alone keeps them apart.
      const count = random.chance(0.4) ? random.pick([2, 3]) : 0;
      const shard = count > 0 ? { index: random.int(0, count - 1), count } : undefined;
      return h
        .run({ now: now.toISOString(), lockName: defeatLock ? `chaos-${tick}-${i}` : undefined, failpoint, shard })
        .catch((error: unknown) => {
          if (!(error instanceof InjectedCrash)) throw error;
        });
    });
    injected.invocations += concurrency;
    await Promise.all(runs);
    if (world.schedules && random.chance(0.3)) {
      // Run it twice: the same instant again, once the batch is done.
      injected.invocations += 1;
      await h.run({ now: now.toISOString(), lockName: defeatLock ? `chaos-${tick}-again` : undefined });
    }
    now = world.schedules ? leapAroundSlots(world, world.schedules, now) : new Date(now.getTime() + random.int(15, 180) * 60_000);
  }

  // Settle: no faults, leases and locks long expired, every pending digest day reached.
  await h.setFaults({});
  model?.fake.setFaults(model.apiKey, []);
  const settleDay = new Date(`${utcDay(new Date(now.getTime() + 86_400_000))}T08:30:00Z`);
  const settleRuns = world.schedules
    ? settleOnSlots(world.schedules, now)
    : [
        new Date(now.getTime() + 30 * 60_000),
        new Date(now.getTime() + 3 * 3_600_000),
        settleDay,
        new Date(settleDay.getTime() + 3_600_000),
      ];
  for (const at of settleRuns) {
    const result = await h.run({ now: at.toISOString() });
    if (result.kind !== 'ran') throw new Error(`settle run at ${at.toISOString()} did not run: ${JSON.stringify(result)}`);
  }
  return { tick, injected, settleDay, lastRun: settleRuns.at(-1)! };
}

/** Every pair the keywords match, by delivery id: a posting's keyword is its title's first word. */
async function keywordMatches(world: World): Promise<string[]> {
  const jobs = await world.h.db.collection('jobs').get();
  return jobs.docs.flatMap((job) => {
    const keyword = String(job.get('title')).split(' ')[0];
    return world.subscribers.filter((s) => s.keywords.includes(keyword)).map((s) => deliveryId(s.uid, job.id));
  });
}

/** What every run recorded of its model stage (runs/{runId}.stats.model), crashed runs included: its calls, and the pairs keywords decided, by why. */
async function runModelStats(h: Harness) {
  const total = { calls: 0, fallbacks: {} as Record<string, number> };
  for (const doc of (await h.db.collection('runs').get()).docs) {
    const model = doc.get('stats.model') as { calls: number; fallbacks: Record<string, number> } | null;
    if (!model) continue;
    total.calls += model.calls;
    for (const [reason, n] of Object.entries(model.fallbacks)) total.fallbacks[reason] = (total.fallbacks[reason] ?? 0) + n;
  }
  return total;
}

describe(`randomized faults (seed ${seed})`, () => {
  it.concurrent(
    'no duplicate, nothing lost silently, nothing stuck — counted like a queue checker',
    { timeout: 600_000 },
    async ({ expect }) => {
      const world = await createWorld(seededRandom(seed), null);
      try {
        const { tick, injected, lastRun } = await soak(world);
        const report = await checkDeliveries(world.h.db, await world.h.inbox(), { lastRun, digestHourUtc: world.h.config.DIGEST_HOUR_UTC });
        console.log(
          `chaos seed ${seed}: ${tick} ticks, ${injected.invocations} invocations, ${injected.crashes} crashes and ${injected.providerFaults} provider-fault windows injected\n` +
            `  alert:  ${JSON.stringify(report.alert)}\n  digest: ${JSON.stringify(report.digest)}`,
        );
        expect(report.stuck).toEqual([]);
        expect(report.offSchedule).toEqual([]);
        expect(report.duplicatePostings).toEqual([]);
        expect(report.alert.duplicated).toBe(0);
        expect(report.alert.unexpected).toBe(0);
        expect(report.alert.lost).toBe(0);
        expect(report.digest.duplicated).toBe(0);
        expect(report.digest.unexpected).toBe(0);
        expect(report.digest.lost).toBe(0);
        expect(report.digest.visibleFailures).toBe(0);
      } finally {
        await world.h.close();
      }
    },
  );

  it.concurrent(
    'with the AI stage and model faults: each pair answered once, fits 0–100, no claim left, nothing under the threshold mailed, no address sent — and still no duplicate, nothing lost',
    { timeout: 600_000 },
    async ({ expect }) => {
      const fake = await startModelFake({ port: 0 });
      const model = { fake, apiKey: `sk-chaos-${randomBytes(6).toString('hex')}` };
      // Its own stream from the same seed: the keyword world's draws stay as they were.
      const world = await createWorld(seededRandom(seed ^ 0x5eed), model);
      try {
        const { tick, injected, lastRun } = await soak(world);
        const received = await world.h.inbox();
        const report = await checkDeliveries(world.h.db, received, { lastRun, digestHourUtc: world.h.config.DIGEST_HOUR_UTC });
        const requests = fake.requests(model.apiKey);
        const verdicts = await checkVerdicts(world.h.db, { requests, received, now: lastRun, keywordMatches: await keywordMatches(world) });
        const stats = await runModelStats(world.h);
        console.log(
          `chaos seed ${seed} (AI stage on): ${tick} ticks, ${injected.invocations} invocations, ${injected.crashes} crashes, ${injected.providerFaults} provider-fault and ${injected.modelFaultWindows} model-fault windows, ${injected.deadClaims} dead runs' claims injected\n` +
            `  alert:  ${JSON.stringify(report.alert)}\n  digest: ${JSON.stringify(report.digest)}\n` +
            `  model:  ${verdicts.requests} requests, by fault met ${JSON.stringify(verdicts.byFault)} (injected for ${JSON.stringify(injected.modelFaults)}); ` +
            `${verdicts.verdictsStored} verdicts stored for ${verdicts.pairsAnswered} pairs answered, ${verdicts.notAFit} not_a_fit, ${verdicts.expiredClaims.length} expired claims left; ` +
            `keyword fallbacks ${JSON.stringify(stats.fallbacks)}`,
        );
        expect(report.stuck).toEqual([]);
        expect(report.offSchedule).toEqual([]);
        expect(report.duplicatePostings).toEqual([]);
        expect(report.alert).toMatchObject({ duplicated: 0, unexpected: 0, lost: 0 });
        expect(report.digest).toMatchObject({ duplicated: 0, unexpected: 0, lost: 0, visibleFailures: 0 });

        // Soft, so a broken run lists every rule it broke. Privacy first: nothing names the person.
        expect.soft(verdicts.identitiesSent).toEqual([]);
        expect.soft(verdicts.unknownProfiles).toEqual([]);
        // Scored once: no pair answered twice, every answer kept, nothing kept that was not answered.
        expect.soft(verdicts.answeredTwice).toEqual([]);
        expect.soft(verdicts.answeredNotStored).toEqual([]);
        expect.soft(verdicts.storedNotAnswered).toEqual([]);
        expect.soft(verdicts.badVerdicts).toEqual([]);
        expect.soft(verdicts.fitMismatch).toEqual([]);
        // Every claim a run took was answered or given up before the run ended: after the quiet runs no lease is
        // live, and the only expired claims are the dead runs' this suite planted on pairs no later run judged.
        expect.soft(verdicts.liveClaims).toEqual([]);
        expect.soft(verdicts.expiredClaims.filter((claim) => !claim.includes('(run dead-run-'))).toEqual([]);
        // Below the threshold: closed not_a_fit, in no email; and not_a_fit only below it.
        expect.soft(verdicts.belowThresholdNotClosed).toEqual([]);
        expect.soft(verdicts.notAFitWithoutLowFit).toEqual([]);
        expect.soft(verdicts.belowThresholdMailed).toEqual([]);
        // Faults never cost a delivery: every keyword match was sent, or closed as not_a_fit or by a cap.
        expect.soft(verdicts.undecidedMatches).toEqual([]);
        // Every request the model got is a call some run counted (crashed runs record theirs too).
        expect.soft(stats.calls).toBe(verdicts.requests);
        expect.soft(verdicts.verdictsStored).toBeGreaterThan(0);
      } finally {
        await world.h.close();
        await fake.close();
      }
    },
  );

  it.concurrent(
    'copies on two boards and reposts with a raised budget: each subscriber gets each JOB at most once, every due job arrives — counted like a queue checker, by job',
    { timeout: 600_000 },
    async ({ expect }) => {
      const world = await createCopiesWorld(seededRandom(seed ^ 0xc0b1e5));
      try {
        const { tick, injected, settleDay, lastRun } = await soak(world);
        const boards = world.boards!;
        const received = await world.h.inbox();
        const report = await checkDeliveries(world.h.db, received, { lastRun, digestHourUtc: world.h.config.DIGEST_HOUR_UTC });
        const byJob = await checkCanonicalJobs(world.h.db, received, { lastDigestDay: utcDay(settleDay) });
        console.log(
          `chaos seed ${seed} (copies on two boards): ${tick} ticks, ${injected.invocations} invocations, ${injected.crashes} crashes and ${injected.providerFaults} provider-fault windows injected; ` +
            `${boards.jobs.length} jobs, ${boards.copies} copies on a second board, ${boards.reposts} reposts (${raiseOnlyPairs(world, boards)} pairs due only after a raise); stored ${byJob.canonicals} canonical and ${byJob.copies} duplicate postings\n` +
            `  alert:  ${JSON.stringify(report.alert)}\n  digest: ${JSON.stringify(report.digest)}\n` +
            `  by job: alert ${JSON.stringify(byJob.alert)}\n          digest ${JSON.stringify(byJob.digest)}`,
        );
        expect(report.stuck).toEqual([]);
        expect(report.offSchedule).toEqual([]);
        expect(report.duplicatePostings).toEqual([]);
        expect(report.alert).toMatchObject({ duplicated: 0, unexpected: 0, lost: 0 });
        expect(report.digest).toMatchObject({ duplicated: 0, unexpected: 0, lost: 0, visibleFailures: 0 });
        // One card per real job: every job published is one canonical posting, whatever its copies and reposts.
        expect(byJob.canonicals).toBe(boards.jobs.length);
        expect(byJob.deliveriesOnCopies).toEqual([]);
        expect(byJob.unknownItems).toEqual([]);
        expect(byJob.duplicatedPairs).toEqual([]);
        expect(byJob.unexpectedPairs).toEqual([]);
        expect(byJob.lostPairs).toEqual([]);
        expect(byJob.digest.visibleFailures).toBe(0);
      } finally {
        await world.h.close();
      }
    },
  );
  it.concurrent(
    'mixed zones and cadences, the clock leaping across local digest hours and a daylight-saving change: one digest per local period — 0 duplicated, 0 lost, judged by each schedule',
    { timeout: 600_000 },
    async ({ expect }) => {
      const world = await createSchedulesWorld(seededRandom(seed ^ 0x20ae5));
      const schedules = world.schedules!;
      try {
        const { tick, injected, lastRun } = await soak(world);
        const received = await world.h.inbox();
        const report = await checkDeliveries(world.h.db, received, { lastRun, digestHourUtc: world.h.config.DIGEST_HOUR_UTC });
        const digestRows = (await world.h.db.collection('emails').where('kind', '==', 'digest').get()).docs.map((d) => d.id);
        console.log(
          `chaos seed ${seed} (zones and cadences): from ${schedules.start.toISOString()} across ${schedules.change.what} at ${schedules.change.at} to ${lastRun.toISOString()}; ` +
            `${tick} ticks, ${injected.invocations} invocations, ${injected.crashes} crashes and ${injected.providerFaults} provider-fault windows injected; ` +
            `subscribers ${JSON.stringify(schedules.modes)}; ${digestRows.length} digests claimed (${digestRows.filter((k) => /_\d{4}-W\d{2}$/.test(k)).length} weekly)\n` +
            `  alert:  ${JSON.stringify(report.alert)}\n  digest: ${JSON.stringify(report.digest)}`,
        );
        expect(report.stuck).toEqual([]);
        expect(report.offSchedule).toEqual([]);
        expect(report.duplicatePostings).toEqual([]);
        expect(report.alert).toMatchObject({ duplicated: 0, unexpected: 0, lost: 0 });
        expect(report.digest).toMatchObject({ duplicated: 0, unexpected: 0, lost: 0, visibleFailures: 0 });
      } finally {
        await world.h.close();
      }
    },
  );
});
