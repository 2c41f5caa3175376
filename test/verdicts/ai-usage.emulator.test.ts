import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Firestore } from 'firebase-admin/firestore';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { startModelFake, type ModelFake } from '../../scripts/model-fake/server';
import { silentLogger } from '../../lib/runtime/logger';
import { createFirestore } from '../../lib/store/firestore';
import { utcDay } from '../../lib/store/timestamps';
import {
  aiUsageRef,
  createTokenReservation,
  MAX_USAGE_WRITES_PER_RUN,
  newRunModelUsage,
  TOKEN_RESERVATIONS,
  type TokenReservation,
} from '../../lib/verdicts/ai-usage';
import type { VerdictUsage } from '../../lib/verdicts/ask-verdicts';
import { fakeVerdictClient } from '../support/fake-verdict-client';
import { scoreOnce, type ScoreSubscriber } from '../../lib/verdicts/score-once';
import { createJudge, type JudgedSubscriber } from '../../lib/verdicts/judge-postings';
import type { Posting } from '../../lib/feeds/posting';
import type { VerdictPosting } from '../../lib/verdicts/wire';

/**
 * aiUsage/{day} is written by every run and shard: a run reserves its share of the day's token
 * budget, spends it in memory and records once at its end (lib/verdicts/ai-usage.ts). Here 8 runs
 * at once, on a budget too small for all of them: the budget holds (to the stated overshoot),
 * nothing any run used is lost, and no run writes the day's document more than
 * MAX_USAGE_WRITES_PER_RUN times, however many calls it makes. Each test has a project of its own,
 * so its day's document is its own.
 */

let n = 0;
const freshDb = (): Firestore => createFirestore({ projectId: `ai-usage-${Date.now()}-${process.pid}-${++n}` });

beforeAll(() => {
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  process.env.METADATA_SERVER_DETECTION = 'none';
});

const now = new Date('2026-11-30T08:00:00Z');
const day = utcDay(now);
const LEASE_MS = 360_000;

/** A run's reservation, with every call's usage it was handed kept aside for the bounds. */
function runReservation(db: Firestore, input: { budget: number; clock?: () => Date; runId?: string }) {
  const spent: VerdictUsage[] = [];
  const inner = createTokenReservation({
    db,
    runId: input.runId ?? `run-${randomBytes(4).toString('hex')}`,
    budget: input.budget,
    retentionDays: 30,
    clock: input.clock ?? (() => now),
    leaseMs: LEASE_MS,
  });
  const tokens: TokenReservation = {
    ...inner,
    spend(usage) {
      spent.push(usage);
      inner.spend(usage);
    },
  };
  return { tokens, spent, total: () => spent.reduce((sum, u) => sum + u.promptTokens + u.completionTokens, 0) };
}

const usage = (total: number): VerdictUsage => ({ promptTokens: total - 10, completionTokens: 10, estimated: false });
const stored = async (db: Firestore) => (await aiUsageRef(db, day).get()).data()!;

describe('8 runs at once share the day’s token budget through reservations', () => {
  it('the budget holds to one call per run, nothing used is lost, and each run writes the day at most MAX_USAGE_WRITES_PER_RUN times', async () => {
    const db = freshDb();
    const BUDGET = 10_000;
    const CALL = 100;
    const runs = Array.from({ length: 8 }, () => runReservation(db, { budget: BUDGET }));
    // Each run calls one at a time, a check before each call as scoreOnce makes before each batch,
    // with a pause per call so the 8 interleave their reservations.
    await Promise.all(
      runs.map(async (run, i) => {
        while (await run.tokens.canSpend()) {
          await sleep(1 + (i % 3));
          run.tokens.spend(usage(CALL));
        }
        await run.tokens.record();
      }),
    );
    const doc = await stored(db);
    const used = runs.reduce((sum, run) => sum + run.total(), 0);
    const calls = runs.reduce((sum, run) => sum + run.spent.length, 0);
    // Nothing lost: the document holds exactly what the runs spent (a lost update would not).
    expect(doc.tokens).toBe(used);
    expect(doc.calls).toBe(calls);
    expect(doc.promptTokens + doc.completionTokens).toBe(used);
    expect(doc.lapsedTokens).toBe(0);
    expect(doc.held).toEqual({});
    // The budget holds: each run can overshoot its reservation by the one call it started last.
    expect(doc.tokens).toBeLessThanOrEqual(BUDGET + runs.length * CALL);
    // Writes are O(runs), not O(calls): a write per call would be `calls` writes, far past the bound.
    for (const run of runs) expect(run.tokens.writes()).toBeLessThanOrEqual(MAX_USAGE_WRITES_PER_RUN);
    expect(calls).toBeGreaterThan(runs.length * MAX_USAGE_WRITES_PER_RUN);
    // What the runs did not use is given back: a later run is granted all of it.
    const later = runReservation(db, { budget: BUDGET });
    const left = BUDGET - doc.tokens;
    expect(await later.tokens.canSpend()).toBe(left > 0);
    if (left > 0)
      expect(Object.values((await stored(db)).held)).toMatchObject([
        { tokens: Math.min(left, Math.ceil(BUDGET * TOKEN_RESERVATIONS.firstShare)) },
      ]);
  });

  it('the unguarded version (read, add, write back) loses the counts of runs that wrote at once (the test above has teeth)', async () => {
    const db = freshDb();
    const ref = aiUsageRef(db, day);
    await ref.set({ day, tokens: 0 });
    // 8 runs read, then each writes back what it read plus its own 100.
    const snaps = await Promise.all(Array.from({ length: 8 }, () => ref.get()));
    await Promise.all(snaps.map((snap) => ref.set({ day, tokens: (snap.get('tokens') as number) + 100 })));
    expect((await ref.get()).get('tokens')).toBeLessThan(800);
  });

  it('8 concurrent runs of scoreOnce against the model fake: the budget holds, the document is exact, writes stay bounded', async () => {
    const fake: ModelFake = await startModelFake({ port: 0 });
    try {
      const db = freshDb();
      const apiKey = `sk-usage-${randomBytes(6).toString('hex')}`;
      const client = fakeVerdictClient(fake, apiKey);
      // About 500 tokens a request: 8 runs × 16 subscribers is ~64,000 tokens asked for.
      const BUDGET = 40_000;
      const SUBSCRIBERS = 16;
      const posting = (run: number, i: number): VerdictPosting => ({
        id: `sample_${run}_${i}`,
        title: 'React and TypeScript frontend',
        description: 'Remote contract.',
        budget: { amount: 1_000, currency: 'USD', kind: 'fixed' },
        source: 'sample',
      });
      const subscriber = (run: number, i: number): ScoreSubscriber => ({
        id: `usage-${run}-${i}-${randomBytes(3).toString('hex')}`,
        keywords: ['react'],
        excludes: [],
        minPay: { fixed: null, hourly: null, yearly: null },
        about: 'Frontend contracts',
        profileVersion: 1,
      });
      const clock = () => new Date();
      const today = utcDay(clock());
      const runs = Array.from({ length: 8 }, (_, r) => ({
        r,
        usage: newRunModelUsage(),
        reservation: runReservation(db, { budget: BUDGET, clock }),
        fallbacks: 0,
      }));
      await Promise.all(
        runs.map(async (run) => {
          // One posting per subscriber: one batch (a check of the reservation) per call, the most checks a run can make.
          for (let i = 0; i < SUBSCRIBERS; i++) {
            const outcomes = await scoreOnce(
              {
                db,
                client,
                config: { tuning: { AI_MAX_CALLS_PER_RUN: 1_000 }, RETENTION_DAYS: 30 },
                clock,
                log: silentLogger,
                usage: run.usage,
                tokens: run.reservation.tokens,
              },
              { runId: `run-${run.r}`, subscriber: subscriber(run.r, i), postings: [posting(run.r, i)] },
            );
            run.fallbacks += [...outcomes.values()].filter((o) => o.kind === 'fallback' && o.reason === 'budget').length;
          }
          await run.reservation.tokens.record();
        }),
      );
      const doc = (await aiUsageRef(db, today).get()).data()!;
      const used = runs.reduce((sum, run) => sum + run.usage.tokens, 0);
      const largestCall = Math.max(...runs.flatMap((run) => run.reservation.spent.map((u) => u.promptTokens + u.completionTokens)));
      expect(doc.tokens).toBe(used);
      expect(doc.calls).toBe(runs.reduce((sum, run) => sum + run.reservation.spent.length, 0));
      expect(doc.held).toEqual({});
      // Over budget by at most the one call each run had started when its reservation ran out.
      expect(doc.tokens).toBeLessThanOrEqual(BUDGET + runs.length * largestCall);
      // The budget did stop calls: some pairs were decided by keywords for it.
      expect(runs.reduce((sum, run) => sum + run.fallbacks, 0)).toBeGreaterThan(0);
      for (const run of runs) expect(run.reservation.tokens.writes()).toBeLessThanOrEqual(MAX_USAGE_WRITES_PER_RUN);
      // One increment per batch (the design this replaces) would have written once per call.
      expect(Math.max(...runs.map((run) => run.usage.calls))).toBeGreaterThan(MAX_USAGE_WRITES_PER_RUN);
    } finally {
      await fake.close();
    }
  });
});

describe('a run that dies keeps its reservation only until it lapses', () => {
  it('past its lease the next run counts it spent (whole, in lapsedTokens); if the run comes back, its record replaces that with what it used', async () => {
    const db = freshDb();
    const BUDGET = 32_000;
    let at = now;
    const clock = () => at;
    const dead = runReservation(db, { budget: BUDGET, clock, runId: 'run-dead' });
    expect(await dead.tokens.canSpend()).toBe(true);
    dead.tokens.spend(usage(300));
    const first = BUDGET * TOKEN_RESERVATIONS.firstShare;
    expect((await stored(db)).held['run-dead'].tokens).toBe(first);

    // Within the lease another run leaves it alone, and is granted from what is left.
    const during = runReservation(db, { budget: BUDGET, clock, runId: 'run-during' });
    expect(await during.tokens.canSpend()).toBe(true);
    await during.tokens.record();
    expect(Object.keys((await stored(db)).held)).toEqual(['run-dead']);

    // Past it, the next run to write counts the dead run's reservation as used: nobody knows what it spent.
    at = new Date(now.getTime() + LEASE_MS + 1);
    const next = runReservation(db, { budget: BUDGET, clock, runId: 'run-next' });
    expect(await next.tokens.canSpend()).toBe(true);
    const afterLapse = await stored(db);
    expect(afterLapse.held['run-dead']).toBeUndefined();
    expect(afterLapse.tokens).toBe(first);
    expect(afterLapse.lapsedTokens).toBe(first);
    // The lost part is bounded by what it held: the rest of the budget is still granted.
    expect(afterLapse.held['run-next'].tokens).toBe(first);

    // It was alive after all: its record puts what it really used in place of the assumption.
    await dead.tokens.record();
    const corrected = await stored(db);
    expect(corrected.tokens).toBe(300);
    expect(corrected.lapsedTokens).toBe(0);
    expect(corrected.calls).toBe(1);
    await next.tokens.record();
    expect((await stored(db)).held).toEqual({});
  });

  it('a run that reaches the budget asks the store nothing more: a refusal writes nothing', async () => {
    const db = freshDb();
    await aiUsageRef(db, day).set({ day, tokens: 1_000 });
    const run = runReservation(db, { budget: 1_000 });
    expect(await run.tokens.canSpend()).toBe(false);
    expect(await run.tokens.canSpend()).toBe(false);
    await run.tokens.record();
    expect(run.tokens.writes()).toBe(0);
  });
});

describe('the run records its usage after its last call', () => {
  it('a judgement still under way when the run records (a step threw beside it) is waited for, and its tokens are recorded', async () => {
    const fake = await startModelFake({ port: 0 });
    try {
      const db = freshDb();
      const apiKey = `sk-usage-${randomBytes(6).toString('hex')}`;
      const res = await fetch(`${fake.url}/__faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiKey, faults: [{ mode: 'slow', ms: 300 }] }),
      });
      expect(res.ok).toBe(true);
      const clock = () => new Date();
      const judge = createJudge({
        db,
        client: fakeVerdictClient(fake, apiKey),
        config: {
          tuning: { AI_CONCURRENCY: 4, AI_MAX_CALLS_PER_RUN: 1_000 },
          AI_DAILY_TOKEN_BUDGET: 1_000_000,
          RETENTION_DAYS: 30,
          RUN_BUDGET_MS: 60_000,
        },
        clock,
        log: silentLogger,
        runId: 'run-recording',
      });
      const subscriber = {
        id: `usage-late-${randomBytes(3).toString('hex')}`,
        keywords: ['react'],
        excludes: [],
        minPay: { fixed: null, hourly: null, yearly: null },
        about: 'Frontend contracts',
        profileVersion: 1,
        fitThreshold: 60,
      } as unknown as JudgedSubscriber;
      const posting = {
        id: 'sample_late_1',
        title: 'React frontend',
        description: 'Remote contract.',
        budget: null,
        source: 'sample',
      } as unknown as Posting;
      let judged = false;
      const judging = judge.judge(subscriber, [posting]).then(() => (judged = true));
      await judge.record();
      expect(judged).toBe(true);
      await judging;
      const doc = (await aiUsageRef(db, utcDay(clock())).get()).data()!;
      expect(judge.stats().tokens).toBeGreaterThan(0);
      expect(doc.tokens).toBe(judge.stats().tokens);
      expect(doc.held).toEqual({});
    } finally {
      await fake.close();
    }
  });
});
