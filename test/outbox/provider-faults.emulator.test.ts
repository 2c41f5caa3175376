import { afterEach, describe, expect, it } from 'vitest';
import { InjectedCrash, noFailpoints, type Failpoint } from '../../lib/runtime/failpoints';
import { runCycle } from '../../lib/cycle/run-cycle';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const NOW = '2026-11-30T06:00:00Z';
let h: Harness;

afterEach(async () => h.close());

async function setup(mode: 'instant' | 'daily' = 'instant', overrides: Record<string, string> = {}) {
  h = await createHarness({ ...overrides }, { SEND_MAX_ATTEMPTS: 3 });
  await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode });
  h.serveFeed(postingsAbout('react', 2, { at: new Date(NOW) }));
}

async function row() {
  const doc = (await h.db.collection('emails').get()).docs[0];
  return { status: doc.get('status'), attempts: doc.get('attempts'), lastError: doc.get('lastError'), payloadHash: doc.get('payloadHash') };
}

describe('provider faults inside one run', () => {
  it('429 with Retry-After: waits as told, sends once, and uses up no attempt (a rate limit says nothing about the email)', async () => {
    await setup();
    await h.setFaults({ failNext: { count: 1, status: 429, name: 'rate_limit_exceeded' } });
    const res = await h.cron({ now: NOW });
    expect(res.body.instantEmails).toBe(1);
    expect(await h.inbox()).toHaveLength(1);
    expect(await row()).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('more 429 rate limits in a row than SEND_MAX_ATTEMPTS (shards sharing one provider rate): the alert is still sent once, never dead', async () => {
    await setup();
    await h.setFaults({ failNext: { count: 4, status: 429, name: 'rate_limit_exceeded' } });
    const res = await h.cron({ now: NOW });
    expect(res.body).toMatchObject({ instantEmails: 1, failures: 0 });
    expect(await h.inbox()).toHaveLength(1);
    expect(await row()).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('500 then success: the alert is retried under the same key and arrives once', async () => {
    await setup();
    await h.setFaults({ failNext: { count: 2, status: 500 } });
    await h.cron({ now: NOW });
    expect(await h.inbox()).toHaveLength(1);
    expect(await row()).toMatchObject({ status: 'sent', attempts: 3 });
  });

  it('accepted then connection dropped (ambiguous): the retry reuses the key and the provider drops the copy', async () => {
    await setup();
    await h.setFaults({ dropAfterAccept: 1 });
    await h.cron({ now: NOW });
    const inbox = await h.inbox();
    expect(inbox).toHaveLength(1);
    expect(await row()).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('a validation error (422) is permanent: dead with its error, deliveries failed, never retried', async () => {
    await setup();
    await h.setFaults({ failNext: { count: 1, status: 422, name: 'validation_error' } });
    const res = await h.cron({ now: NOW });
    expect(res.body.failures).toBe(1);
    expect(await row()).toMatchObject({ status: 'dead', attempts: 1, lastError: expect.stringContaining('422') });
    await h.cron({ now: '2026-11-30T06:15:00Z' });
    expect(await h.inbox()).toHaveLength(0);
    expect((await h.deliveryOutcomes()).map((d) => d.status)).toEqual(['failed', 'failed']);
  });

  it('an alert whose every attempt is ambiguous ends failed/unknown_outcome after SEND_MAX_ATTEMPTS, and stays failed', async () => {
    await setup();
    await h.setFaults({ failNext: { count: 10, status: 503 } });
    const res = await h.cron({ now: NOW });
    expect(res.body.failures).toBe(1);
    expect(await row()).toMatchObject({ status: 'failed', attempts: 3, lastError: expect.stringMatching(/^unknown_outcome/) });
    await h.setFaults({});
    await h.cron({ now: '2026-11-30T06:15:00Z' });
    expect(await h.inbox()).toHaveLength(0);
  });

  it('a digest that keeps failing ends dead (visible, with its payload hash), never silently lost', async () => {
    await setup('daily');
    await h.cron({ now: NOW });
    await h.setFaults({ failNext: { count: 10, status: 500 } });
    await h.cron({ now: '2026-11-30T08:00:00Z' });
    expect(await row()).toMatchObject({ status: 'dead', attempts: 3, payloadHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('a sink rate limit of 2 requests/s with SEND_RATE_PER_SEC=2: every subscriber gets their alert, no 429 is fatal', async () => {
    h = await createHarness({ SEND_RATE_PER_SEC: '2' }, { SEND_CONCURRENCY: 2 });
    for (let i = 0; i < 5; i++) await h.subscribe({ email: `dev${i}@example.com`, keywords: ['react'] });
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    await h.setFaults({ ratePerSec: 2 });
    const res = await h.cron({ now: NOW });
    expect(res.body.instantEmails).toBe(5);
    expect(await h.inbox()).toHaveLength(5);
  });
});

describe('a batch refused as the run runs out of time', () => {
  it('a batch rate-limited (429) just as the budget ends goes back to pending as never tried: the next run batches it again beside the new rows (2 requests, not one per email) and sends each email once', async () => {
    h = await createHarness();
    for (let i = 0; i < 3; i++) await h.subscribe({ email: `a${i}@example.com`, keywords: ['react'] });
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    await h.setFaults({ failNext: { count: 1, status: 429, name: 'rate_limit_exceeded' } });
    // The budget ends right after the refused send: the batch is handed to the next run.
    let leap = 0;
    const endBudgetAfterSend: Failpoint = async (name) => {
      if (name === 'after-send') leap = 10 * h.config.RUN_BUDGET_MS;
    };
    const first = await runCycle(
      { ...h.deps, wallClock: () => Date.now() + leap, failpoint: endBudgetAfterSend },
      { now: new Date(NOW), dryRun: false, trigger: 'test' },
    );
    expect(first).toMatchObject({ partial: true, instantEmails: 0, providerRequests: 1 });
    const released = (await h.db.collection('emails').get()).docs.map((d) => d.data());
    expect(released.map((r) => [r.status, r.batchKey, r.firstAttemptAt, r.attempts])).toEqual(Array(3).fill(['pending', null, null, 1]));

    // New rows are packed into a send batch of their own; the released ones into another, under a new key.
    for (let i = 0; i < 3; i++) await h.subscribe({ email: `b${i}@example.com`, keywords: ['react'] });
    h.serveFeed(postingsAbout('react', 1, { at: new Date('2026-11-30T06:10:00Z'), prefix: 'second' }));
    const second = await h.cron({ now: '2026-11-30T06:15:00Z' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ instantEmails: 9, failures: 0, partial: false, providerRequests: 2 });
    const perRecipient = new Map<string, number>();
    for (const m of await h.inbox()) perRecipient.set(m.to[0], (perRecipient.get(m.to[0]) ?? 0) + 1);
    expect([...perRecipient].sort()).toEqual([
      ['a0@example.com', 2],
      ['a1@example.com', 2],
      ['a2@example.com', 2],
      ['b0@example.com', 1],
      ['b1@example.com', 1],
      ['b2@example.com', 1],
    ]);
  });
});

describe('the log of a failed email', () => {
  it('one JSON-ready line with the runId, kind, status, attempts and error; no address, not even as the base64url uid', async () => {
    await setup();
    await h.setFaults({ failNext: { count: 1, status: 422, name: 'validation_error' } });
    const lines: { event: string; fields: Record<string, unknown> }[] = [];
    const result = await runCycle(
      { ...h.deps, failpoint: noFailpoints, log: (event, fields = {}) => void lines.push({ event, fields }) },
      { now: new Date(NOW), dryRun: false, trigger: 'test' },
    );
    const failed = lines.filter((l) => l.event === 'email.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].fields).toMatchObject({
      runId: result.kind === 'ran' ? result.runId : '?',
      kind: 'alert',
      status: 'dead',
      attempts: 1,
    });
    expect(String(failed[0].fields.error)).toContain('422');
    const uid = (await h.db.collection('users').get()).docs[0].id;
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain('ada@example.com');
    expect(everything).not.toContain(uid);
  });

  it('an alert given up past the provider key window (its sender died mid-send) logs one line too', async () => {
    await setup();
    const crashBeforeSend: Failpoint = async (name) => {
      if (name === 'before-send') throw new InjectedCrash(name);
    };
    await expect(h.run({ now: NOW, failpoint: crashBeforeSend })).rejects.toThrow(InjectedCrash);
    const lines: { event: string; fields: Record<string, unknown> }[] = [];
    const later = await runCycle(
      { ...h.deps, failpoint: noFailpoints, log: (event, fields = {}) => void lines.push({ event, fields }) },
      { now: new Date('2026-12-01T07:00:00Z'), dryRun: false, trigger: 'test' },
    );
    expect(later).toMatchObject({ failures: 1 });
    const failed = lines.filter((l) => l.event === 'email.failed');
    expect(failed).toEqual([
      {
        event: 'email.failed',
        fields: {
          runId: later.kind === 'ran' ? later.runId : '?',
          email: expect.any(String),
          kind: 'alert',
          status: 'failed',
          error: 'unknown_outcome',
        },
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain((await h.db.collection('users').get()).docs[0].id);
  });
});
