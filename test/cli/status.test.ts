import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliFixture, type CliFixture } from './cli-fixture';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { repairMatchIndex } from '../../lib/subscribers/repair-match-index';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { SCHEMA_VERSION } from '../../lib/ledger/migrations/migrations';

let fx: CliFixture;
beforeEach(() => {
  fx = createCliFixture();
});
afterEach(() => fx.close());

const row = (status: string, lastError: string | null, createdAt: string) => ({
  uid: 'uid-ada',
  kind: 'alert',
  deliveryIds: [],
  status,
  attempts: status === 'pending' ? 0 : 3,
  lastError,
  createdAt: new Date(createdAt),
});

describe('scout status', () => {
  it('on an empty store says there is nothing, exit 0', async () => {
    const run = await fx.cli(['status']);
    expect(run.code).toBe(0);
    expect(run.out).toEqual([
      `schema: no schema version stored yet: the next run stamps a fresh store with ${SCHEMA_VERSION}; on a store older code used it refuses until \`scout migrate\``,
      'outbox: 0 pending, 0 sending, 0 failed, 0 dead',
      'digests: 0 queued items due now',
      'digest hours: no active digest subscribers',
      'match index: not built yet (0 of 0 active subscribers so far): runs read users/ until a repair sweep completes',
      'match index: no repair sweep yet (the next run starts one)',
      'matching: no posting waits over an hour',
      'provider: no quota reached in the latest runs',
      'ai: no model calls today (it is on where the app has AI_BASE_URL and AI_MODEL; see docs/verdicts.md)',
      'channels: slack none; discord none; telegram none; webhook none (subscribers with one or more channels of the kind in that state)',
      'channels: 0 messages pending, 0 sending',
      'channels: no runs yet',
      'channels: none disabled as gone among the newest 20 failed messages',
      'locks: none taken',
      'sources: none fetched yet',
      '',
      'no failed or dead emails',
      '',
      'no runs yet',
    ]);
  });

  it('counts the outbox, lists the newest failures with their last error, the runs and the lock; exit 1 when anything failed', async () => {
    const emails = fx.db.collection('emails');
    await emails.doc('alert_a').set(row('pending', null, '2026-11-30T06:00:00Z'));
    await emails.doc('alert_b').set(row('dead', '422 validation_error: bad to', '2026-11-30T06:01:00Z'));
    await emails.doc('alert_c').set(row('failed', 'unknown_outcome', '2026-11-30T06:02:00Z'));
    await fx.db
      .collection('deliveries')
      .doc('uid-bea_rss_1')
      .set({ uid: 'uid-bea', status: 'queued', digestDate: '2026-11-30', digestDueAt: new Date('2026-11-30T08:00:00Z') });
    await fx.db.collection('deliveries').doc('uid-bea_rss_2').set({ uid: 'uid-bea', status: 'sent', digestDate: '2026-11-30' });
    await fx.db
      .collection('deliveries')
      .doc('uid-cid_rss_1')
      .set({ uid: 'uid-cid', status: 'queued', digestDate: '2026-12-01', digestDueAt: new Date('2026-12-01T08:00:00Z') });
    await fx.db
      .collection('runs')
      .doc('run-1')
      .set({
        trigger: 'cron',
        status: 'partial',
        startedAt: new Date('2026-11-30T08:45:00Z'),
        durationMs: 281_000,
        stats: { emailsSent: 40 },
        errors: [],
      });
    await fx.db
      .collection('locks')
      .doc('scan')
      .set({ owner: 'run-2', expiresAt: new Date('2026-11-30T09:05:00Z') });
    await fx.db
      .collection('locks')
      .doc('scan-1-of-2')
      .set({ owner: 'run-0', expiresAt: new Date('2026-11-30T08:50:00Z') });

    // One posting stored two hours ago and never matched (a shard not called), one stored just now.
    await fx.db
      .collection('jobs')
      .doc('rss_old')
      .set({ matchState: 'pending', fetchedAt: new Date(fx.now.getTime() - 2 * 3_600_000) });
    await fx.db
      .collection('jobs')
      .doc('rss_new')
      .set({ matchState: 'pending', fetchedAt: new Date(fx.now.getTime() - 60_000) });
    await fx.db
      .collection('jobs')
      .doc('rss_done')
      .set({ matchState: 'matched', fetchedAt: new Date(fx.now.getTime() - 2 * 3_600_000) });

    const run = await fx.cli(['status', '--limit', '2']);

    expect(run.code).toBe(1);
    const others = ['match index:', 'schema:', 'channels:'];
    expect(run.out.filter((line) => !others.some((start) => line.startsWith(start))).slice(0, 8)).toEqual([
      'outbox: 1 pending, 0 sending, 1 failed, 1 dead',
      'digests: 1 queued item due now',
      'digest hours: no active digest subscribers',
      'matching: 1 posting stored over an hour ago still unmatched (runs failing or cut short, or a shard not called)',
      'provider: no quota reached in the latest runs',
      'ai: no model calls today, and the verdict stage was off in the latest 1 run (it is on where the app has AI_BASE_URL and AI_MODEL; see docs/verdicts.md)',
      'lock scan: held by run-2 until 2026-11-30T09:05:00.000Z',
      'lock scan-1-of-2: expired, last held by run-0 until 2026-11-30T08:50:00.000Z',
    ]);
    expect(run.out.join('\n')).toMatch(
      /alert_c\s+alert\s+failed\s+3\s+unknown_outcome\n\s*alert_b\s+alert\s+dead\s+3\s+422 validation_error: bad to/,
    );
    expect(run.out.at(-1)).toMatch(/^run-1\s+partial\s+cron\s+-\s+2026-11-30T08:45:00.000Z\s+281.0 s\s+40\s+-$/);
  });

  it('says when the provider quota stops sending and when it resumes, from the newest runs; a later run that sent clears it', async () => {
    const runs = fx.db.collection('runs');
    const quota = {
      period: 'daily',
      reachedAt: new Date('2026-11-30T08:00:03Z'),
      resumesAt: new Date('2026-12-01T00:00:00Z'),
      error: '429 daily_quota_exceeded: You have reached your daily email sending quota.',
    };
    await runs.doc('run-1').set({ status: 'done', startedAt: new Date('2026-11-30T07:45:00Z'), stats: { emailsSent: 40 }, errors: [] });
    await runs
      .doc('run-2')
      .set({ status: 'partial', startedAt: new Date('2026-11-30T08:00:00Z'), stats: { emailsSent: 3 }, quota, errors: [] });
    // A run with nothing to send says nothing about the quota.
    await runs.doc('run-3').set({ status: 'done', startedAt: new Date('2026-11-30T08:15:00Z'), stats: { emailsSent: 0 }, errors: [] });

    const reached = await fx.cli(['status', '--limit', '1']);
    expect(reached.code).toBe(0);
    expect(reached.out).toContain(
      'provider quota reached; sending resumes at 2026-12-01T00:00:00.000Z (daily quota, reached 2026-11-30T08:00:03.000Z by run run-2; emails wait as pending, no attempt used)',
    );

    await runs.doc('run-4').set({ status: 'done', startedAt: new Date('2026-11-30T08:30:00Z'), stats: { emailsSent: 5 }, errors: [] });
    expect((await fx.cli(['status'])).out).toContain('provider: no quota reached in the latest runs');
  });

  it('says what the AI verdict stage used today and in the latest runs, and when its budget made keywords decide', async () => {
    const runs = fx.db.collection('runs');
    const run = (startedAt: string, model: unknown) => ({
      status: 'done',
      startedAt: new Date(startedAt),
      stats: { emailsSent: 1, model },
      errors: [],
    });
    await runs.doc('run-1').set(run('2026-11-30T07:45:00Z', null)); // before the stage was turned on
    await runs.doc('run-2').set(run('2026-11-30T08:00:00Z', { calls: 3, tokens: 2_400, judged: 7, notAFit: 2, fallbacks: { timeout: 1 } }));
    await runs
      .doc('run-3')
      .set(run('2026-11-30T08:15:00Z', { calls: 50, tokens: 40_000, judged: 120, notAFit: 30, fallbacks: { budget: 12, timeout: 2 } }));
    await fx.db.collection('aiUsage').doc('2026-11-30').set({ day: '2026-11-30', tokens: 42_400, calls: 53 });
    // Yesterday's usage is not today's.
    await fx.db.collection('aiUsage').doc('2026-11-29').set({ day: '2026-11-29', tokens: 999_999, calls: 999 });

    const out = (await fx.cli(['status'])).out;
    expect(out.filter((line) => line.startsWith('ai: '))).toEqual([
      "ai: 42400 tokens in 53 answered model calls today (2026-11-30 UTC), against the app's AI_DAILY_TOKEN_BUDGET",
      'ai: the latest 3 runs (2 with the model on): 53 calls, 42400 tokens, 127 judged, 32 not a fit; by keywords alone: budget 12, timeout 3',
      'ai: budget reached in 1 of the latest 3 runs: keywords alone decided the rest (AI_MAX_CALLS_PER_RUN for a run, or AI_DAILY_TOKEN_BUDGET until 00:00 UTC)',
    ]);
  });

  it('names the local digest hours the last day’s runs did not serve, and what scheduler per-hour schedules need', async () => {
    // A once-a-day scheduler at 08:05 UTC (Vercel Hobby), and subscribers at the default hour, in Berlin at 18:00, in Kolkata at 07:00.
    await fx.db
      .collection('runs')
      .doc('run-1')
      .set({ status: 'done', startedAt: new Date('2026-11-30T08:05:00Z'), stats: {}, errors: [] });
    const add = async (email: string, schedule: Record<string, unknown>) => {
      const code = (await fx.cli(['users', 'add', email, '--keywords', 'react', '--mode', 'daily'])).code;
      expect(code).toBe(0);
      if (Object.keys(schedule).length > 0) await fx.db.collection('users').doc(Buffer.from(email).toString('base64url')).update(schedule);
    };
    await add('ada@example.com', {});
    await add('bea@example.com', { timezone: 'Europe/Berlin', digestHour: 18 });
    await add('cid@example.com', { timezone: 'Europe/Berlin', digestHour: 18 });
    await add('dee@example.com', { timezone: 'Asia/Kolkata', digestHour: 7, mode: 'weekly' });

    const out = (await fx.cli(['status'])).out;
    expect(out.filter((line) => line.startsWith('digest hours: '))).toEqual([
      'digest hours: 2 local digest hours in the last day had no run within the hour, so those digests go out late: ' +
        'Asia/Kolkata 07:00 (01:30 UTC, 1 subscriber), Europe/Berlin 18:00 (17:00 UTC, 2 subscribers). ' +
        "Per-hour schedules need a scheduler that calls at least hourly (Vercel Pro, GitHub Actions, cron-job.org); the Vercel Hobby plan's once-a-day cron serves only the default hour (DIGEST_HOUR_UTC=8). " +
        '(3 zone/hour pairs checked)',
    ]);
  });

  it('reports the match index’s drift against the active subscribers, and what the last repair sweep found', async () => {
    for (const name of ['ada', 'bob', 'cy'])
      await addActiveSubscriber(fx.db, { email: `${name}@example.com`, keywords: ['react'] }, fx.now);
    await repairMatchIndex(fx.db, { now: fx.now });
    // Written to users/ behind the index's back: one active subscriber the index does not know.
    await fx.db
      .collection('users')
      .doc(subscriberId('dee@example.com'))
      .set({ email: 'dee@example.com', keywords: ['go'], status: 'active' });
    const run = await fx.cli(['status']);
    const lines = run.out.filter((line) => line.startsWith('match index:'));
    expect(lines[0]).toMatch(
      /^match index: 3 entries for 4 active subscribers \(drift 1: the repair sweep fixes it within a day\), 16 shards, fullest at 0% of 1 MiB$/,
    );
    expect(lines[1]).toBe('match index: last repair sweep finished 2026-11-30T09:00:00.000Z: 3 checked, 0 drifted, 0 fixed');
  });

  it('rejects a bad --limit without opening the store, exit 2', async () => {
    const run = await fx.cli(['status', '--limit', '0']);
    expect(run).toMatchObject({ code: 2, opened: false });
    expect(run.err[0]).toContain('--limit must be a whole number from 1 to 50');
  });
});
