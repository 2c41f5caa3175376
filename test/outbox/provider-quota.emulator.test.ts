import { afterEach, describe, expect, it } from 'vitest';
import { SEND_CONCURRENCY } from '../../lib/mail/send-limiter';
import { noFailpoints, type Failpoint } from '../../lib/runtime/failpoints';
import { runCycle } from '../../lib/cycle/run-cycle';
import { handleSignupRequest } from '../../lib/subscriptions/handle-signup-request';
import { createHarness, type Harness } from '../support/harness';
import { checkDeliveries } from '../support/queue-checker';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const BUDGET_MS = 60_000;
let h: Harness;

afterEach(async () => h?.close());

/**
 * A wall clock that sleeping moves forward without waiting: a run that "waits out" a Retry-After
 * of hours finishes at once in real time, yet its durationMs says how long it would have taken.
 */
function virtualTime() {
  let offset = 0;
  const sleeps: number[] = [];
  return {
    wallClock: () => Date.now() + offset,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      offset += ms;
    },
    sleeps,
  };
}

async function runAt(now: string, failpoint: Failpoint = noFailpoints) {
  const time = virtualTime();
  const result = await runCycle(
    { ...h.deps, wallClock: time.wallClock, sleep: time.sleep, failpoint },
    { now: new Date(now), dryRun: false, trigger: 'test' },
  );
  if (result.kind !== 'ran') throw new Error(`expected a run, got ${result.kind}`);
  return { ...result, sleeps: time.sleeps };
}

async function rows() {
  const snap = await h.db.collection('emails').get();
  return snap.docs.map((d) => ({ key: d.id, kind: d.get('kind'), status: d.get('status'), attempts: d.get('attempts') }));
}

describe('a provider quota pauses sending; it never uses up attempts (docs/design.md §2.11)', () => {
  it('three runs refused as over the daily quota give nothing up and stay in budget; once it clears, everything goes out once', async () => {
    h = await createHarness({ RUN_BUDGET_MS: String(BUDGET_MS) }, { SEND_MAX_ATTEMPTS: 3 });
    for (const name of ['ada', 'bob', 'cyd']) await h.subscribe({ email: `${name}@example.com`, keywords: ['react'], mode: 'instant' });
    await h.subscribe({ email: 'dee@example.com', keywords: ['react'], mode: 'daily' });
    h.serveFeed(postingsAbout('react', 2, { at: new Date('2026-11-30T06:00:00Z') }));
    await h.setFaults({ quotaExceeded: 'daily' });

    for (const now of ['2026-11-30T06:00:00Z', '2026-11-30T08:00:00Z', '2026-11-30T08:15:00Z']) {
      const run = await runAt(now);
      expect(run).toMatchObject({
        partial: true,
        failures: 0,
        emailsSent: 0,
        quota: { period: 'daily', error: expect.stringContaining('daily_quota_exceeded') },
      });
      // The refusal stopped the run: one request, not one per email, and no Retry-After of hours waited out.
      expect(run.providerRequests).toBe(1);
      expect(run.durationMs).toBeLessThan(BUDGET_MS);
      expect(Math.max(0, ...run.sleeps)).toBeLessThan(BUDGET_MS);
      const resumesAt = new Date(run.quota!.resumesAt).getTime();
      expect(resumesAt).toBeGreaterThan(Date.parse(now));
      expect(resumesAt).toBeLessThanOrEqual(Date.parse(now) + 24 * 3_600_000);

      const recorded = (await h.db.collection('runs').doc(run.runId).get()).data()!;
      expect(recorded).toMatchObject({
        status: 'partial',
        quota: { period: 'daily', error: expect.stringContaining('daily_quota_exceeded') },
      });
      expect(recorded.quota.reachedAt.toDate().getTime()).toBeGreaterThanOrEqual(Date.parse(now));
      expect(recorded.quota.resumesAt.toDate().getTime()).toBe(resumesAt);

      // Nothing given up, no attempt used: every row is still pending, as if never tried.
      const current = await rows();
      expect(current.every((r) => r.status === 'pending' && r.attempts === 0)).toBe(true);
    }
    expect((await rows()).map((r) => r.kind).sort()).toEqual(['alert', 'alert', 'alert', 'digest']);
    expect(await h.inbox()).toEqual([]);

    await h.setFaults({});
    const cleared = await runAt('2026-12-01T00:15:00Z');
    expect(cleared).toMatchObject({ partial: false, failures: 0, quota: null, instantEmails: 3, digests: 1 });
    const again = await runAt('2026-12-01T00:30:00Z');
    expect(again).toMatchObject({ emailsSent: 0, quota: null });

    const inbox = await h.inbox();
    expect(inbox.map((m) => m.to[0]).sort()).toEqual(['ada@example.com', 'bob@example.com', 'cyd@example.com', 'dee@example.com']);
    const report = await checkDeliveries(h.db, inbox, {
      lastRun: new Date('2026-12-01T00:30:00Z'),
      digestHourUtc: h.config.DIGEST_HOUR_UTC,
    });
    expect(report.stuck).toEqual([]);
    expect(report.duplicatePostings).toEqual([]);
    for (const kind of ['alert', 'digest'] as const) {
      expect(report[kind]).toMatchObject({ lost: 0, duplicated: 0, unexpected: 0, visibleFailures: 0 });
    }
    expect(report.alert.received).toBe(3);
    expect(report.digest.received).toBe(1);
  });

  it('sent one by one (SEND_BATCH_SIZE=1), the first refusal stops the run: a few requests at most, every row pending and untried', async () => {
    h = await createHarness({ RUN_BUDGET_MS: String(BUDGET_MS) }, { SEND_MAX_ATTEMPTS: 2, SEND_BATCH_SIZE: 1 });
    for (let i = 0; i < 30; i++) await h.subscribe({ email: `dev${i}@example.com`, keywords: ['react'] });
    h.serveFeed(postingsAbout('react', 1, { at: new Date('2026-11-30T06:00:00Z') }));
    await h.setFaults({ quotaExceeded: 'monthly' });

    for (const now of ['2026-11-30T06:00:00Z', '2026-11-30T06:15:00Z']) {
      const run = await runAt(now);
      expect(run).toMatchObject({ partial: true, failures: 0, quota: { period: 'monthly' } });
      expect(run.providerRequests).toBeGreaterThanOrEqual(1);
      expect(run.providerRequests).toBeLessThanOrEqual(h.config.tuning?.SEND_CONCURRENCY ?? SEND_CONCURRENCY);
      expect(run.durationMs).toBeLessThan(BUDGET_MS);
      const current = await rows();
      expect(current).toHaveLength(30);
      expect(current.every((r) => r.status === 'pending' && r.attempts === 0)).toBe(true);
    }

    await h.setFaults({});
    expect(await runAt('2026-12-01T00:15:00Z')).toMatchObject({ instantEmails: 30, failures: 0, quota: null });
    expect(new Set((await h.inbox()).map((m) => m.to[0])).size).toBe(30);
    expect(await h.inbox()).toHaveLength(30);
  });

  it('a confirmation refused as over quota at signup stays pending (the signup still answers 202) and the first run after the quota sends it', async () => {
    h = await createHarness({ RUN_BUDGET_MS: String(BUDGET_MS) });
    await h.setFaults({ quotaExceeded: 'daily' });
    const signup = await handleSignupRequest(
      new Request('http://localhost:3000/api/signup', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'eve@example.com', keywords: 'react', mode: 'instant' }),
      }),
      { ...h.deps, now: new Date('2026-11-30T06:00:00Z') },
    );
    expect(signup.status).toBe(202);
    expect(await rows()).toEqual([{ key: expect.stringMatching(/^confirm_/), kind: 'confirm', status: 'pending', attempts: 0 }]);

    expect(await runAt('2026-11-30T06:15:00Z')).toMatchObject({ quota: { period: 'daily' }, failures: 0 });
    expect(await rows()).toMatchObject([{ status: 'pending', attempts: 0 }]);

    await h.setFaults({});
    await runAt('2026-12-01T00:15:00Z');
    expect(await rows()).toMatchObject([{ status: 'sent', attempts: 1 }]);
    const inbox = await h.inbox();
    expect(inbox.map((m) => [m.to[0], m.subject])).toEqual([['eve@example.com', 'Confirm your Scout subscription']]);
  });

  it('an alert whose earlier attempt had an unknown outcome stays `sending` when a quota stops the run, so the key-window rule still decides', async () => {
    h = await createHarness({ RUN_BUDGET_MS: String(BUDGET_MS) }, { SEND_MAX_ATTEMPTS: 3 });
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    h.serveFeed(postingsAbout('react', 1, { at: new Date('2026-11-30T06:00:00Z') }));
    await h.setFaults({ failNext: { count: 1, status: 503 } });
    // The first attempt's fate is unknown (503); the provider is over quota by the retry.
    const quotaAfterFirstSend: Failpoint = async (name) => {
      if (name === 'after-send') await h.setFaults({ quotaExceeded: 'daily' });
    };
    expect(await runAt('2026-11-30T06:00:00Z', quotaAfterFirstSend)).toMatchObject({ failures: 0, quota: { period: 'daily' } });
    // One attempt counted (the 503), the quota's not; left to the next run's recovery, not put back as never sent.
    expect(await rows()).toMatchObject([{ kind: 'alert', status: 'sending', attempts: 1 }]);

    await h.setFaults({});
    expect(await runAt('2026-11-30T06:15:00Z')).toMatchObject({ instantEmails: 1, quota: null });
    expect(await rows()).toMatchObject([{ status: 'sent', attempts: 2 }]);
    expect(await h.inbox()).toHaveLength(1);
  });
});
