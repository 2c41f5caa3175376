import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InjectedCrash, type Failpoint, type FailpointName } from '../../lib/runtime/failpoints';
import { utcDay } from '../../lib/store/timestamps';
import { createHarness, type Harness } from '../support/harness';
import { checkDeliveries } from '../support/queue-checker';
import type { TestItem } from '../../scripts/sample-feed/rss-feed';
import { seededRandom } from '../support/seeded-random';

/**
 * The randomized fault suite: many cycles over random subscribers and postings, with random
 * crashes at the cycle's failure points, random provider faults and 1–8 overlapping invocations
 * (some through the lock, some with it defeated), then clean settle runs. What the mail sink
 * received is then checked like a queue: no duplicate, nothing lost without a visible state.
 *
 *   SCOUT_CHAOS_SEED=1234 npm test -- chaos    replay one seed
 *   npm run test:chaos                         the long soak: 60 ticks, and more until 300 invocations
 */
const seed = Number(process.env.SCOUT_CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ticks = Number(process.env.SCOUT_CHAOS_TICKS ?? 10);
/** The soak keeps ticking past `ticks` until this many invocations have run (each tick runs 1–8). */
const minInvocations = Number(process.env.SCOUT_CHAOS_MIN_INVOCATIONS ?? 0);
const random = seededRandom(seed);

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

let h: Harness;
const feed: TestItem[] = [];
let postingSeq = 0;

beforeAll(async () => {
  console.log(
    `chaos seed ${seed}, ${ticks} ticks (replay: SCOUT_CHAOS_SEED=${seed} SCOUT_CHAOS_TICKS=${ticks} SCOUT_CHAOS_MIN_INVOCATIONS=${minInvocations})`,
  );
  h = await createHarness({ SEND_MAX_ATTEMPTS: '8', LOCK_TTL_MS: String(10 * 60_000), SEND_RATE_PER_SEC: '100' });
  const subscribers = random.int(6, 12);
  for (let i = 0; i < subscribers; i++) {
    const keywords = [random.pick(KEYWORDS), random.pick(KEYWORDS)];
    await h.subscribe({ email: `sub${i}@example.com`, keywords: [...new Set(keywords)], mode: random.chance(0.5) ? 'instant' : 'daily' });
  }
});
afterAll(async () => h?.close());

function addPostings(now: Date) {
  const count = random.int(0, 4);
  for (let i = 0; i < count; i++) {
    const keyword = random.pick(KEYWORDS);
    postingSeq += 1;
    feed.push({
      guid: `chaos-${postingSeq}`,
      title: `${keyword} role ${postingSeq}`,
      link: `https://jobs.example.com/chaos/${postingSeq}`,
      description: `Work with ${keyword}.`,
      pubDate: new Date(now.getTime() - 60_000).toUTCString(),
    });
  }
  // Feeds also repeat and reorder items; the ledger must not care.
  h.serveFeed(random.chance(0.3) ? [...feed].reverse() : feed);
}

function randomFaults() {
  const roll = random.next();
  if (roll < 0.35) return {};
  if (roll < 0.55) return { failNext: { count: random.int(1, 3), status: random.pick([500, 502, 503]) } };
  if (roll < 0.7) return { failNext: { count: random.int(1, 2), status: 429, name: 'rate_limit_exceeded' } };
  if (roll < 0.85) return { dropAfterAccept: random.int(1, 2) };
  return { latencyMs: random.int(20, 200) };
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

describe(`randomized faults (seed ${seed})`, () => {
  it('no duplicate, nothing lost silently, nothing stuck — counted like a queue checker', { timeout: 600_000 }, async () => {
    let now = new Date('2026-11-30T06:00:00Z');
    const injected = { crashes: 0, providerFaults: 0, invocations: 0 };
    let tick = 0;
    for (; tick < ticks || injected.invocations < minInvocations; tick++) {
      addPostings(now);
      const faults = randomFaults();
      if (Object.keys(faults).length > 0) injected.providerFaults += 1;
      await h.setFaults(faults);
      const concurrency = random.int(1, 8);
      const defeatLock = random.chance(0.4);
      const runs = Array.from({ length: concurrency }, (_, i) => {
        const failpoint = random.chance(0.35) ? crashOnceAt(random.pick(POINTS), injected) : undefined;
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
      now = new Date(now.getTime() + random.int(15, 180) * 60_000);
    }

    // Settle: no faults, leases and locks long expired, every pending digest day reached.
    await h.setFaults({});
    const settleDay = new Date(`${utcDay(new Date(now.getTime() + 86_400_000))}T08:30:00Z`);
    for (const at of [
      new Date(now.getTime() + 30 * 60_000),
      new Date(now.getTime() + 3 * 3_600_000),
      settleDay,
      new Date(settleDay.getTime() + 3_600_000),
    ]) {
      const result = await h.run({ now: at.toISOString() });
      expect(result.kind).toBe('ran');
    }

    const report = await checkDeliveries(h.db, await h.inbox(), { lastDigestDay: utcDay(settleDay) });
    console.log(
      `chaos seed ${seed}: ${tick} ticks, ${injected.invocations} invocations, ${injected.crashes} crashes and ${injected.providerFaults} provider-fault windows injected\n` +
        `  alert:  ${JSON.stringify(report.alert)}\n  digest: ${JSON.stringify(report.digest)}`,
    );
    expect(report.stuck).toEqual([]);
    expect(report.duplicatePostings).toEqual([]);
    expect(report.alert.duplicated).toBe(0);
    expect(report.alert.unexpected).toBe(0);
    expect(report.alert.lost).toBe(0);
    expect(report.digest.duplicated).toBe(0);
    expect(report.digest.unexpected).toBe(0);
    expect(report.digest.lost).toBe(0);
    expect(report.digest.visibleFailures).toBe(0);
  });
});
