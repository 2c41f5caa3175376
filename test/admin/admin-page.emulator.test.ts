import { randomBytes } from 'node:crypto';
import type { Tuning } from '../../lib/runtime/config';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordFeedFailure } from '../../lib/feeds/feed-state';
import { DASHBOARD_LIMITS } from '../../lib/ops/read-dashboard';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { providerIdempotencyKey } from '../../lib/outbox/outbox-row';
import { instrumentFirestore } from '../../scripts/bench/firestore-counter';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout, type TestItem } from '../../scripts/sample-feed/rss-feed';
import { startModelFake, type ModelFake } from '../../scripts/model-fake/server';
import { adminClient, asCookie, type AdminClient } from './admin-fixture';

/**
 * The ops page over a store that real cycles filled: runs, sent and dead emails, deliveries, a
 * digest; plus what only a bad day brings (a broken feed, a partial shard run, a held lock),
 * planted with hostile text where strangers' text can reach the page.
 */
const ADA = 'ada@example.com';
const BEA = 'bea@example.com';
const CID = 'cid@example.com';
const HOSTILE_KEYWORD = '<img src=x onerror=alert(1)>';
const FEED_ERROR = '<script>alert("feed")</script> 500 Internal Server Error';
const RUN_ERROR = 'feed evil-board: <script>alert("run")</script>';
const NOW = new Date('2026-11-30T09:00:00Z');

type World = { h: Harness; admin: AdminClient; runIds: string[]; deadKey: string };

async function buildWorld(): Promise<World> {
  const h = await createHarness({}, { SEND_MAX_ATTEMPTS: 3 });
  // Input refuses such a keyword now, but one stored before the rule is still shown, escaped.
  const ada = await h.subscribe({ email: ADA, keywords: ['react'] });
  await h.db
    .collection('users')
    .doc(ada)
    .update({ keywords: ['react', HOSTILE_KEYWORD] });
  await h.subscribe({ email: BEA, keywords: ['react'], mode: 'daily' });
  const runIds: string[] = [];
  const cron = async (now: string) => runIds.push((await h.cron({ now })).body.runId);

  // 06:00 Ada's alert is refused for good (dead); Bea's items queue for her digest.
  h.serveFeed(postingsAbout('react', 2, { at: new Date('2026-11-30T06:00:00Z') }));
  await h.setFaults({ failNext: { count: 1, status: 422, name: 'validation_error' } });
  await cron('2026-11-30T06:00:00Z');
  // 06:15 Cid joins; new postings reach Ada and Cid.
  await h.subscribe({ email: CID, keywords: ['react'] });
  h.serveFeed(postingsAbout('react', 2, { at: new Date('2026-11-30T06:15:00Z'), prefix: 'second' }));
  await cron('2026-11-30T06:15:00Z');
  // 08:05 Bea's digest; 08:20 nothing new.
  await cron('2026-11-30T08:05:00Z');
  await cron('2026-11-30T08:20:00Z');

  await h.db
    .collection('runs')
    .doc('20261130T053000000Z-shard000')
    .set({
      trigger: 'github-actions',
      shard: '0-of-2',
      status: 'partial',
      partial: true,
      startedAt: new Date('2026-11-30T05:30:00Z'),
      durationMs: 241_500,
      errors: [],
      stats: { jobsFetched: 120, jobsNew: 40, matches: 300, emailsSent: 12, failures: 2 },
    });
  await h.db
    .collection('runs')
    .doc('20261130T054500000Z-failed00')
    .set({
      trigger: 'cron',
      status: 'failed',
      partial: false,
      startedAt: new Date('2026-11-30T05:45:00Z'),
      durationMs: 3_200,
      errors: [RUN_ERROR],
      stats: { jobsFetched: 0, jobsNew: 0, matches: 0, emailsSent: 0, failures: 1 },
    });
  await recordFeedFailure(h.db, {
    source: 'evil-board',
    url: 'https://evil.example/feed.xml',
    error: FEED_ERROR,
    now: new Date('2026-11-30T08:20:00Z'),
  });
  await h.db
    .collection('locks')
    .doc('scan')
    .set({ owner: 'run-live-0001', ts: new Date('2026-11-30T08:58:00Z'), expiresAt: new Date('2026-11-30T09:08:00Z') });
  await h.db
    .collection('locks')
    .doc('scan-0-of-2')
    .set({ owner: 'run-gone-0002', ts: new Date('2026-11-30T05:30:00Z'), expiresAt: new Date('2026-11-30T05:40:00Z') });

  const dead = await h.db.collection('emails').where('status', '==', 'dead').get();
  expect(dead.size).toBe(1);
  return { h, admin: adminClient(h, NOW), runIds, deadKey: dead.docs[0].id };
}

describe('the dashboard and a lookup over real data', () => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld();
  }, 120_000);
  afterAll(async () => w.h.close());

  it('shows the runs (with shard, partial flag and errors), three charts, the locks, the feeds, the counts and the dead email', async () => {
    const res = await w.admin.get({ cookie: await w.admin.session() });
    expect(res.status).toBe(200);
    const body = res.body;

    for (const runId of [...w.runIds, '20261130T053000000Z-shard000', '20261130T054500000Z-failed00']) expect(body).toContain(runId);
    expect(body).toContain('shard 0-of-2');
    expect(body).toMatch(/<span class="pill warn">partial<\/span>/);
    expect(body).toContain('4 min 2 s'); // the partial run's duration
    expect(body.match(/<svg class="chart"/g)).toHaveLength(3);
    expect(body).toContain('Duration per run');
    expect(body).toContain('Emails sent per run');
    expect(body).toContain('Failures per run');
    expect(body).toMatch(/<rect class="bar warn"/); // the partial run, in the duration chart
    expect(body).toMatch(/<rect class="bar bad"/);

    // Locks: every document in locks/, held or expired, with its holder.
    expect(body).toMatch(/<code>scan<\/code><\/td><td><code>run-live-0001<\/code>[\s\S]*?<span class="pill warn">held<\/span>/);
    expect(body).toMatch(/<code>scan-0-of-2<\/code><\/td><td><code>run-gone-0002<\/code>[\s\S]*?<span class="pill quiet">expired<\/span>/);

    // Feeds: the broken one first, with its error escaped; the harness's own feed fetched fine.
    expect(body).toContain('<strong>evil-board</strong>');
    expect(body).toContain('&lt;script&gt;alert(&quot;feed&quot;)&lt;/script&gt; 500 Internal Server Error');
    expect(body).toContain('1 failure in a row');
    expect(body.indexOf('evil-board')).toBeLessThan(body.indexOf(`${w.h.feeds.url}/jobs.xml`));

    // Counts: one dead alert; Bea's digest went out today; nothing left due.
    const tile = (label: string) => new RegExp(`<span class="n">(\\d+)</span><span class="l">${label}</span>`).exec(body)?.[1];
    expect(tile('emails dead')).toBe('1');
    expect(tile('emails pending')).toBe('0');
    expect(tile('digests sent today')).toBe('1');
    expect(tile('queued items due in a digest')).toBe('0');
    expect(tile('postings unmatched after an hour')).toBe('0');
    expect(tile('claims given up in recent runs')).toBe('0');
    // Subscribers by status, counted by aggregation: Ada, Bea and Cid confirmed; nobody else.
    expect(tile('subscribers confirmed and active')).toBe('3');
    expect(tile('subscribers awaiting confirmation')).toBe('0');
    expect(tile('subscribers paused')).toBe('0');
    expect(tile('subscribers unsubscribed')).toBe('0');
    expect(body).toContain('3 in all');
    // Bea's default hour (08:00 UTC) had the 08:05 run.
    expect(body).toContain('Every subscriber’s local digest hour in the last day had a run within the hour (1 zone/hour pair checked).');

    // The dead email, its last error and attempts, and a Retry button that posts its key.
    expect(body).toContain(`<code>${w.deadKey}</code>`);
    expect(body).toMatch(/422 validation_error/);
    expect(body).toContain(`<input type="hidden" name="emailKey" value="${w.deadKey}"/>`);
    expect(body).toContain('<form action="/admin/actions" method="post">');

    // Hostile text arrives escaped; the page carries no script at all.
    expect(body).toContain('feed evil-board: &lt;script&gt;alert(&quot;run&quot;)&lt;/script&gt;');
    expect(body).not.toMatch(/<script/i);
    expect(body).not.toContain(ADA); // the dashboard names no subscriber; the lookup does
  });

  it('costs a bounded number of reads: the session, thirty counts, eight counter documents, plus the documents it lists', async () => {
    const cookie = await w.admin.session();
    const counter = instrumentFirestore();
    try {
      const res = await w.admin.get({ cookie });
      expect(res.status).toBe(200);
      const { reads, roundTrips } = counter.snapshot();
      // The session's document, 6 runs + 1 failure + 2 locks + 2 feeds listed, 12 aggregations (each at least one read; the outbox's five open states and the subscribers' four statuses among them),
      // and the doors in one getAll: 4 failure counters, the signup emails' hour, 3 login-lock windows.
      // The digest hours: 25 hour values, each ending on an empty read, 1 (zone, hour) pair found, 1 slot asked of runs/ (served).
      // And schema/current, the store's schema version.
      // The channels: 16 counts (kind × state) and 2 (messages pending, sending), and the newest failed messages (none: one read).
      expect(reads).toBe(1 + 12 + 6 + 1 + 2 + 2 + 8 + (25 + 1 + 1) + 1 + (16 + 2 + 1));
      expect(roundTrips).toBe(1 + 17 + (25 + 1 + 1) + 1 + (16 + 2 + 1));
      // However big the store: at most 226 documents listed (and 20 failed messages and their subscribers), plus one read per 1,000 entries counted.
      expect(DASHBOARD_LIMITS).toEqual({ runs: 50, failures: 20, locks: 50, feeds: 100 });
    } finally {
      counter.restore();
    }
  });

  it('looks a subscriber up by email (any case): status, preferences escaped, deliveries with outcomes, emails newest first', async () => {
    const res = await w.admin.post('/admin', { email: ' ADA@Example.com ' }, { cookie: await w.admin.session() });
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body).toContain(`<h2 id="who-title">${ADA}</h2>`);
    expect(body).toMatch(/<dt>Status<\/dt><dd><span class="pill ok">active<\/span>/);
    expect(body).toContain('<dt>Mode</dt><dd><code>instant</code>: an email as soon as a posting fits</dd>');
    expect(body).toContain('react, &lt;img src=x onerror=alert(1)&gt;');
    expect(body).not.toContain('<img');

    // Four postings: the first two went with the dead alert, the next two were sent.
    const deliveries = body.slice(body.indexOf('id="deliveries-title"'));
    expect(deliveries.match(/<span class="pill bad">failed<\/span>/g)).toHaveLength(2);
    expect(deliveries.match(/<span class="pill ok">sent<\/span>/g)).toHaveLength(2);
    expect(deliveries).toContain('react engineer wanted #1 (second)');
    expect(deliveries).toMatch(/422 validation_error/);

    // Emails: the sent alert (06:15) above the dead one (06:00), which has a Retry button that brings the operator back here.
    const emails = body.slice(body.indexOf('id="emails-title"'), body.indexOf('id="deliveries-title"'));
    expect(emails.indexOf('pill ok">sent')).toBeLessThan(emails.indexOf('pill bad">dead'));
    expect(emails).toContain(`name="emailKey" value="${w.deadKey}"`);
    expect(emails).toContain(`name="back" value="${subscriberId(ADA)}"`);

    // Actions for an active subscriber on instant alerts: no digest to resend (their dead alert has its Retry above).
    expect(body).not.toContain('Resend latest digest');
    expect(body).not.toContain('value="resend-digest"');
    expect(body).toContain('Pause subscriber');
    expect(body).not.toMatch(/<script/i);
  });

  it('offers "Resend latest digest" only to a subscriber whose cadence is a digest', async () => {
    const res = await w.admin.post('/admin', { email: BEA }, { cookie: await w.admin.session() });
    expect(res.body).toContain('<dt>Mode</dt><dd><code>daily</code>');
    expect(res.body).toContain('Resend latest digest');
    expect(res.body).toContain('Pause subscriber');
  });

  it('an unknown address says so (404) and shows nobody', async () => {
    const res = await w.admin.post('/admin', { email: 'nobody@example.com' }, { cookie: await w.admin.session() });
    expect(res.status).toBe(404);
    expect(res.body).toContain('No subscriber has that address.');
    expect(res.body).not.toContain(ADA);
  });
});

describe('actions, each 303 back to /admin with a flash message in a cookie, never in the URL', () => {
  let w: World;
  afterEach(async () => w.h.close());

  const flashOf = (setCookies: string[]) => {
    const set = setCookies.find((c) => c.startsWith('scout_admin_flash='));
    expect(set).toBeDefined();
    return asCookie(set!);
  };

  it('retry: the dead alert goes back to pending, the page says so, and the next run sends it once under its key', async () => {
    w = await buildWorld();
    const session = await w.admin.session();
    const res = await w.admin.post('/admin/actions', { action: 'retry', emailKey: w.deadKey }, { cookie: session });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin');
    expect((await w.h.db.collection('emails').doc(w.deadKey).get()).get('status')).toBe('pending');

    const page = await w.admin.get({ cookie: `${session}; ${flashOf(res.setCookies)}` });
    expect(page.body).toContain(`Retried ${w.deadKey}: it is pending again under the same key`);
    expect(page.setCookies).toEqual([expect.stringMatching(/^scout_admin_flash=; Max-Age=0/)]);

    const again = await w.admin.post('/admin/actions', { action: 'retry', emailKey: w.deadKey }, { cookie: session });
    const second = await w.admin.get({ cookie: `${session}; ${flashOf(again.setCookies)}` });
    expect(second.body).toContain('Not retried:');
    expect(second.body).toContain('is pending, and only a dead email can be retried.');

    const before = (await w.h.inbox(ADA)).length;
    await w.h.cron({ now: '2026-11-30T09:15:00Z' });
    const inbox = await w.h.inbox(ADA);
    expect(inbox).toHaveLength(before + 1);
    expect(inbox.at(-1)!.idempotencyKey).toBe(providerIdempotencyKey(w.deadKey));
    expect((await w.h.db.collection('emails').doc(w.deadKey).get()).get('retries')).toBe(1);
  });

  it('pause from the subscriber page: the redirect names nobody, and the page comes back to that subscriber, paused', async () => {
    w = await buildWorld();
    const session = await w.admin.session();
    const uid = subscriberId(ADA);
    const res = await w.admin.post('/admin/actions', { action: 'pause', uid, back: uid }, { cookie: session });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin');
    expect((await w.h.db.collection('users').doc(uid).get()).get('status')).toBe('paused');

    const page = await w.admin.get({ cookie: `${session}; ${flashOf(res.setCookies)}` });
    expect(page.status).toBe(200);
    expect(page.body).toContain('Paused: Scout sends them nothing until they are resumed.');
    expect(page.body).toContain(`<h2 id="who-title">${ADA}</h2>`);
    expect(page.body).toMatch(/<dt>Status<\/dt><dd><span class="pill warn">paused<\/span>/);
    expect(page.body).toContain('Resume subscriber');
    expect(page.body).not.toContain('Pause subscriber');
  });

  it('resend digest: a copy of the latest digest under digest_{uid}_manual-{ts}, sent now', async () => {
    w = await buildWorld();
    const session = await w.admin.session();
    const uid = subscriberId(BEA);
    const res = await w.admin.post('/admin/actions', { action: 'resend-digest', uid, back: uid }, { cookie: session });
    expect(res.status).toBe(303);
    const page = await w.admin.get({ cookie: `${session}; ${flashOf(res.setCookies)}` });
    expect(page.body).toContain(`Sent digest_${uid}_manual-${NOW.getTime()}, a copy of digest_${uid}_2026-11-30.`);
    const inbox = await w.h.inbox(BEA);
    expect(inbox).toHaveLength(2);
    expect(inbox[1].html).toBe(inbox[0].html);
    expect(inbox[1].idempotencyKey).toBe(providerIdempotencyKey(`digest_${uid}_manual-${NOW.getTime()}`));

    // Refused for someone on instant alerts, even when posted by hand (opt-outs and absences are said, not hidden).
    const before = await w.h.dump(['emails']);
    const instant = await w.admin.post('/admin/actions', { action: 'resend-digest', uid: subscriberId(CID) }, { cookie: session });
    const refused = await w.admin.get({ cookie: `${session}; ${flashOf(instant.setCookies)}` });
    expect(refused.body).toContain('Not sent: they get instant alerts, not digests.');
    expect(await w.h.dump(['emails'])).toEqual(before);

    // And for a digest subscriber who never had one.
    const dee = await w.h.subscribe({ email: 'dee@example.com', keywords: ['cobol'], mode: 'weekly' });
    const none = await w.admin.post('/admin/actions', { action: 'resend-digest', uid: dee }, { cookie: session });
    const noDigest = await w.admin.get({ cookie: `${session}; ${flashOf(none.setCookies)}` });
    expect(noDigest.body).toContain('Not sent: no digest was ever claimed for them.');
  });

  it('an unknown action or a missing target is a 400 that changes nothing', async () => {
    w = await buildWorld();
    const session = await w.admin.session();
    const before = await w.h.dump(['users', 'emails']);
    for (const fields of [
      { action: 'delete-everything' },
      { action: 'retry' },
      { action: 'pause', uid: '../users' },
      { action: 'pause', uid: subscriberId(ADA), back: 'a/b' },
    ]) {
      const res = await w.admin.post('/admin/actions', fields, { cookie: session });
      expect(res.status, JSON.stringify(fields)).toBe(400);
    }
    expect(await w.h.dump(['users', 'emails'])).toEqual(before);
  });
});

describe('digest hours on the ops page', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('with a once-a-day scheduler, names the local hours no run served and what scheduler they need; hourly runs clear it', async () => {
    h = await createHarness();
    await h.subscribe({ email: BEA, keywords: ['react'], mode: 'daily' });
    await h.subscribe({ email: 'zoe@example.com', keywords: ['react'], mode: 'daily', timezone: 'Europe/Berlin', digestHour: 18 });
    await h.cron({ now: '2026-11-30T08:05:00Z' });
    const admin = adminClient(h, NOW);

    const body = (await admin.get({ cookie: await admin.session() })).body;
    expect(body).toContain('<div class="alert" role="status" id="digest-hours-unserved">');
    expect(body).toContain('<strong>1 local digest hour in the last day had no run within the hour</strong>');
    expect(body).toContain(
      'Per-hour schedules need a scheduler that calls at least hourly (Vercel Pro, GitHub Actions, cron-job.org); the Vercel Hobby plan&#x27;s once-a-day cron serves only the default hour',
    );
    expect(body).toMatch(/<td>Europe\/Berlin<\/td><td>18:00<\/td><td>2026-11-29 17:00:00<\/td><td class="num">1<\/td>/);
    expect(body).not.toContain(BEA); // a zone and an hour, never who

    for (let t = Date.parse('2026-11-29T09:00:00Z'); t < NOW.getTime(); t += 3_600_000)
      await h.db
        .collection('runs')
        .doc(`hourly-${t}`)
        .set({ trigger: 'cron', status: 'done', startedAt: new Date(t), stats: {}, errors: [] });
    const after = (await admin.get({ cookie: await admin.session() })).body;
    expect(after).not.toContain('digest-hours-unserved');
    expect(after).toContain('Every subscriber’s local digest hour in the last day had a run within the hour (2 zone/hour pairs checked).');
  });
});

describe("the provider's quota on the ops page", () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('while runs are refused for quota, a banner says when sending resumes and the run carries a quota pill; a run that sends clears it', async () => {
    h = await createHarness();
    await h.subscribe({ email: ADA, keywords: ['react'], mode: 'instant' });
    h.serveFeed(postingsAbout('react', 1, { at: new Date('2026-11-30T06:00:00Z') }));
    await h.setFaults({ quotaExceeded: 'daily' });
    const refused = await h.cron({ now: '2026-11-30T06:00:00Z' });
    expect(refused.body).toMatchObject({ partial: true, quota: { period: 'daily' } });
    const resumesAt: Date = (await h.db.collection('runs').doc(refused.body.runId).get()).get('quota.resumesAt').toDate();
    const stamp = `${resumesAt.toISOString().slice(0, 10)} ${resumesAt.toISOString().slice(11, 19)} UTC`;

    const admin = adminClient(h, NOW);
    const page = (await admin.get({ cookie: await admin.session() })).body;
    expect(page).toContain(`<strong>provider quota reached; sending resumes at ${stamp}</strong>`);
    expect(page).toContain(`reached 2026-11-30 06:00:0`);
    expect(page).toContain(
      `<code>${refused.body.runId}</code>: 429 daily_quota_exceeded: You have reached your daily email sending quota.)`,
    );
    expect(page).toMatch(/<span class="pill bad">quota<\/span>/);
    expect(page.indexOf('provider quota reached')).toBeLessThan(page.indexOf('At a glance'));

    await h.setFaults({});
    await h.cron({ now: '2026-11-30T06:15:00Z' });
    const cleared = (await admin.get({ cookie: await admin.session() })).body;
    expect(cleared).not.toContain('provider quota reached');
    expect(cleared).toMatch(/<span class="pill bad">quota<\/span>/); // the refused run keeps its pill in the list
  });
});

describe('the AI verdicts panel: off, on with the recent runs summed, and the daily token budget spent', () => {
  const HOSTILE_MODEL = 'fake<img/src=x/onerror=alert(1)>';
  const API_KEY = `sk-ops-panel-${randomBytes(6).toString('hex')}`;
  let fake: ModelFake;
  let h: Harness;
  beforeAll(async () => {
    fake = await startModelFake({ port: 0, models: ['scout-fake-1', HOSTILE_MODEL] });
  });
  afterAll(async () => fake.close());
  afterEach(async () => h?.close());

  const withModel = (overrides: Record<string, string> = {}, tuning: Tuning = {}) =>
    createHarness(
      { AI_BASE_URL: fake.baseUrl, AI_API_KEY: API_KEY, AI_MODEL: 'scout-fake-1', ...overrides },
      { AI_TIMEOUT_MS: 2000, ...tuning },
    );
  const aiPanel = (body: string) => body.slice(body.indexOf('id="ai-verdicts"'), body.indexOf('id="door-title"'));
  const tile = (panel: string, label: string) =>
    new RegExp(`<span class="n">([\\d,]+)</span><span class="l">${label}</span>`).exec(panel)?.[1];
  const aiSubscriber = (email: string) => ({ email, keywords: ['react'], mode: 'instant' as const, about: 'dashboard' });
  /** Keywords ['react'], about "dashboard": the fake judges the first and third 100, the second 50 (under the default 60). */
  const items = (at: string, prefix: string): TestItem[] =>
    ['React dashboard for a logistics team', 'React landing page', 'Admin dashboard in React'].map((title, i) => ({
      guid: `${prefix}-${i}`,
      title,
      description: 'Remote.',
      pubDate: new Date(at).toUTCString(),
    }));

  it('off: says keywords alone decide and how to turn it on, and names no limit', async () => {
    h = await createHarness();
    const admin = adminClient(h, NOW);
    const panel = aiPanel((await admin.get({ cookie: await admin.session() })).body);
    expect(panel).toContain('AI verdicts <span class="count">· off: keywords alone decide</span>');
    expect(panel).toContain('<span class="pill quiet">off</span>');
    expect(panel).toContain('set <code>AI_BASE_URL</code> and <code>AI_MODEL</code>');
    expect(panel).toContain('<code>docs/verdicts.md</code>');
    expect(panel).not.toContain('AI_DAILY_TOKEN_BUDGET');
  });

  it('on: the model (escaped), today’s tokens against the budget, the call cap a run reached, the runs’ figures summed, a note on each run that fell back; never the key or the server', async () => {
    // A call judges one posting: a cap of 3 is one subscriber's three postings.
    h = await withModel({ AI_MODEL: HOSTILE_MODEL }, { AI_MAX_CALLS_PER_RUN: 3, AI_CONCURRENCY: 1 });
    await h.subscribe(aiSubscriber('ada@example.com'));
    await h.subscribe(aiSubscriber('bob@example.com'));
    // 06:00 three calls (Ada's three postings), then the cap: Bob's three by keywords for the budget.
    h.serveFeed(items('2026-11-30T06:00:00Z', 'a'));
    const capped = await h.cron({ now: '2026-11-30T06:00:00Z' });
    expect(capped.body.model).toMatchObject({ calls: 3, judged: 3, notAFit: 1, fallbacks: { budget: 3 } });
    // 06:15 the server errs on the three calls it gets: three more by keywords, a server-error each.
    fake.setFaults(API_KEY, [{ mode: '500', count: 3 }]);
    h.serveFeed(items('2026-11-30T06:15:00Z', 'b'));
    const faulted = await h.cron({ now: '2026-11-30T06:15:00Z' });
    expect(faulted.body.model).toMatchObject({ calls: 3, fallbacks: { 'server-error': 3, budget: 3 } });
    fake.setFaults(API_KEY, []);
    const usage = (await h.db.collection('aiUsage').doc('2026-11-30').get()).data()!;
    expect(usage.calls).toBe(3); // the 500s reported no usage: calls against the cap, not tokens

    const admin = adminClient(h, NOW);
    const body = (await admin.get({ cookie: await admin.session() })).body;
    const panel = aiPanel(body);
    expect(panel).toContain('on: a model judges the keyword matches');
    expect(panel).toContain('<code>fake&lt;img/src=x/onerror=alert(1)&gt;</code> <span class="pill ok">on</span>');
    expect(panel).toContain(
      `${usage.tokens.toLocaleString('en-US')} of 4,000,000 (<code>AI_DAILY_TOKEN_BUDGET</code>), ${Math.floor(usage.tokens / 40_000)}% · 3 answered calls`,
    );
    expect(panel).toContain('at most 3 (<code>AI_MAX_CALLS_PER_RUN</code>) · <span class="err">reached in 2 runs of the last 2</span>');
    expect(panel).not.toContain('budget spent');
    expect(panel).toContain('the last 2 runs, 2 with the model on');
    expect(tile(panel, 'model calls')).toBe('6');
    expect(tile(panel, 'tokens')).toBe(usage.tokens.toLocaleString('en-US'));
    expect(tile(panel, 'matches judged')).toBe(String(capped.body.model.judged + faulted.body.model.judged));
    expect(tile(panel, 'judged not a fit \\(not sent\\)')).toBe(String(capped.body.model.notAFit + faulted.body.model.notAFit));
    expect(tile(panel, 'decided by keywords alone')).toBe('9');
    expect(panel).toContain('Decided by keywords alone, by why: budget 6, server-error 3.');

    // Each run's row says how many of its matches keywords decided, and why.
    const runsTable = body.slice(body.indexOf('id="runs-title"'), body.indexOf('id="locks-title"'));
    expect(runsTable).toContain('<span class="sub">3 model fallbacks (budget 3)</span>');
    expect(runsTable).toContain('<span class="sub">6 model fallbacks (budget 3, server-error 3)</span>');

    expect(body).not.toContain(API_KEY);
    expect(body).not.toContain(fake.baseUrl);
    expect(body).not.toContain('<img');
    expect(body).not.toMatch(/<script/i);
  });

  it('on: the panel costs one document read (today’s aiUsage) and one round trip, whatever the runs hold', async () => {
    h = await withModel();
    await h.subscribe(aiSubscriber('ada@example.com'));
    h.serveFeed(items('2026-11-30T06:00:00Z', 'a'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    const on = adminClient(h, NOW);
    const off = adminClient({ ...h, deps: { ...h.deps, config: { ...h.config, AI_BASE_URL: undefined, AI_MODEL: undefined } } }, NOW);
    const cost = async (admin: AdminClient) => {
      const cookie = await admin.session();
      const counter = instrumentFirestore();
      try {
        expect((await admin.get({ cookie })).status).toBe(200);
        return counter.snapshot();
      } finally {
        counter.restore();
      }
    };
    const [withPanel, without] = [await cost(on), await cost(off)];
    expect(withPanel.reads).toBe(without.reads + 1);
    expect(withPanel.roundTrips).toBe(without.roundTrips + 1);
  });

  it('budget spent: one token short says nothing; at AI_DAILY_TOKEN_BUDGET the panel says keywords alone decide until 00:00 UTC', async () => {
    h = await withModel({ AI_DAILY_TOKEN_BUDGET: '5000' });
    await h.subscribe(aiSubscriber('ada@example.com'));
    const admin = adminClient(h, NOW);
    const page = async () => (await admin.get({ cookie: await admin.session() })).body;
    const usage = h.db.collection('aiUsage').doc('2026-11-30');

    await usage.set({ day: '2026-11-30', tokens: 4_999, calls: 3 });
    const short = aiPanel(await page());
    expect(short).toContain('4,999 of 5,000 (<code>AI_DAILY_TOKEN_BUDGET</code>), 99% · 3 answered calls');
    expect(short).not.toContain('budget spent');
    expect(short).not.toContain('pill bad">spent');
    expect(short).toContain('no recent run hit a limit');

    // The day's budget is used up: the next run asks nothing, and every match goes out on its keywords.
    await usage.set({ day: '2026-11-30', tokens: 5_000, calls: 4 });
    const asked = fake.requests(API_KEY).length;
    h.serveFeed(items('2026-11-30T08:30:00Z', 'c'));
    const run = await h.cron({ now: '2026-11-30T08:30:00Z' });
    expect(run.body.model).toMatchObject({ calls: 0, fallbacks: { budget: 3 } });
    expect(fake.requests(API_KEY)).toHaveLength(asked);

    const body = await page();
    const spent = aiPanel(body);
    expect(spent).toContain(
      '<strong>Daily token budget spent — keywords alone decide until 00:00 UTC</strong> (2026-12-01 00:00:00 UTC): 5,000 of 5,000 tokens used today.',
    );
    expect(spent).toContain(
      '5,000 of 5,000 (<code>AI_DAILY_TOKEN_BUDGET</code>), 100% · 4 answered calls <span class="pill bad">spent</span>',
    );
    // The run made no call, so it was the day's tokens, not the per-run cap, that stopped it.
    expect(spent).toContain('<span class="err">1 run stopped by the daily token budget</span>');
    expect(body).toContain('<span class="sub">3 model fallbacks (budget 3)</span>');

    // The next UTC day starts a new aiUsage document: the panel no longer says spent.
    const tomorrow = adminClient(h, new Date('2026-12-01T00:00:05Z'));
    const fresh = aiPanel((await tomorrow.get({ cookie: await tomorrow.session() })).body);
    expect(fresh).toContain('0 of 5,000 (<code>AI_DAILY_TOKEN_BUDGET</code>), 0% · 0 answered calls');
    expect(fresh).not.toContain('budget spent');
  });
});
