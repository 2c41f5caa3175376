import { randomBytes } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';
import type { SinkFaults, SinkMessage } from '../../scripts/mail-sink/types';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { createFirestore } from '../../lib/store/firestore';
import { deliveriesCollection } from '../../lib/ledger/delivery';
import { readDeliveryOutcomes } from '../../lib/ops/delivery-outcome';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import type { SubscriberInput } from '../../lib/subscribers/subscriber';
import { ensureTestBuild, freePort, startNextProcess, TEST_BUILD_ENV, type NextProcess } from '../support/next-process';
import { postingsAbout, rssFeed } from '../../scripts/sample-feed/rss-feed';

/**
 * The real Next server (`next build` + `next start`) is killed with SIGKILL while emails are in
 * flight to the provider, restarted, and run again. Nothing in the process gets a say: no
 * `finally`, no lock release, no record of the answer. The ledger alone must make the next runs
 * finish the job: no subscriber receives a duplicate, and nothing is lost silently.
 *
 * The kill lands inside the sink's injected latency (LATENCY_MS) with SEND_CONCURRENCY (2) requests
 * in flight, so at
 * the moment of the kill some rows are mid-send (the provider accepts them after the server is
 * gone: accepted, never recorded) and the others are leased but not yet handed over. Both kinds
 * of row are left `sending` with a lease the next run must let expire, then take over under the
 * same Idempotency-Key.
 */

const CRON_SECRET = 'process-kill-cron-secret-0123456789';
const DAY = '2026-11-30';
const T0 = new Date(`${DAY}T06:00:00Z`);
const at = (hhmm: string) => `${DAY}T${hhmm}:00Z`;
const LATENCY_MS = 3_000;
const NEXT_DIST_ENV = TEST_BUILD_ENV;

const FEED = [
  ...postingsAbout('react', 3, { at: T0, prefix: 'react' }),
  ...postingsAbout('golang', 2, { at: T0, prefix: 'golang' }),
  ...postingsAbout('python', 4, { at: T0, prefix: 'python' }),
  ...postingsAbout('kotlin', 2, { at: T0, prefix: 'kotlin' }),
];

const SUBSCRIBERS: (SubscriberInput & { keywords: string[] })[] = [
  { email: 'ada@example.com', keywords: ['react'], mode: 'instant' },
  { email: 'bo@example.com', keywords: ['golang'], mode: 'instant' },
  { email: 'cy@example.com', keywords: ['react', 'golang'], mode: 'instant' },
  { email: 'dee@example.com', keywords: ['kotlin'], mode: 'instant' },
  { email: 'eli@example.com', keywords: ['python', 'react'], mode: 'instant' },
  { email: 'fay@example.com', keywords: ['python'], mode: 'daily' },
  { email: 'gus@example.com', keywords: ['react', 'kotlin'], mode: 'daily' },
  { email: 'hal@example.com', keywords: ['golang', 'python'], mode: 'daily' },
];
const INSTANT = SUBSCRIBERS.filter((s) => s.mode === 'instant');
const DAILY = SUBSCRIBERS.filter((s) => s.mode === 'daily');

/** The posting titles a subscriber is due: every test posting names its keyword in its title. */
const expectedTitles = (s: { keywords: string[] }) =>
  FEED.filter((p) => s.keywords.some((k) => p.guid!.startsWith(`${k}-`)))
    .map((p) => p.title)
    .sort();

/** `* <title>` lines of an email's text part: the postings it carries. */
const titlesIn = (m: SinkMessage) =>
  (m.text ?? '')
    .split('\n')
    .filter((line) => line.startsWith('* '))
    .map((line) => line.slice(2));

type Kind = 'alert' | 'digest';
/**
 * What the recipient sees decides the kind, not the Idempotency-Key: a send may go out alone
 * under its email key or inside a provider batch under the batch's key.
 */
const kindOf = (m: SinkMessage): Kind | null => {
  const text = m.text ?? '';
  if (text.startsWith('Your Scout digest for ')) return 'digest';
  if (/^(A new posting fits you|\d+ new postings fit you):/.test(text)) return 'alert';
  return null;
};

/** One isolated Scout: its own Firestore project, its own sink API key (faults scoped to it), its own feed host and port. */
type World = {
  name: string;
  apiKey: string;
  db: Firestore;
  feeds: FeedServer;
  port: number;
  env: Record<string, string>;
  server: NextProcess | null;
  logs: string[];
};

const sinkUrl = () => inject('mailSinkUrl');
const worlds: World[] = [];
const summary: string[] = [];
let buildMs = 0;
const startedAt = Date.now();

async function createWorld(name: string): Promise<World> {
  const firestoreHost = inject('firestoreEmulatorHost');
  process.env.METADATA_SERVER_DETECTION = 'none';
  process.env.FIRESTORE_EMULATOR_HOST = firestoreHost;
  const suffix = randomBytes(5).toString('hex');
  const projectId = `scout-kill-${suffix}`;
  const apiKey = `re_kill_${suffix}`;
  const feeds = await startFeedServer({ port: 0 });
  feeds.setFeed('/jobs.xml', { body: rssFeed(FEED), contentType: 'application/rss+xml' });
  const port = await freePort();
  const world: World = {
    name,
    apiKey,
    db: createFirestore({ projectId }),
    feeds,
    port,
    server: null,
    logs: [],
    env: {
      CRON_SECRET,
      LINK_SECRET: 'process-kill-link-secret-0123456789',
      ADMIN_SECRET: 'process-kill-admin-secret-0123456789',
      APP_URL: `http://127.0.0.1:${port}`,
      MAIL_FROM: 'Scout <alerts@scout.test>',
      RESEND_API_KEY: apiKey,
      RESEND_BASE_URL: sinkUrl(),
      FIREBASE_PROJECT_ID: projectId,
      FIRESTORE_EMULATOR_HOST: firestoreHost,
      METADATA_SERVER_DETECTION: 'none',
      FEED_URLS: `${feeds.url}/jobs.xml`,
      FEED_ALLOW_PRIVATE_ADDRESSES: 'true',
      ALLOW_CLOCK_OVERRIDE: 'true',
      SEND_RATE_PER_SEC: '100',
      ...NEXT_DIST_ENV,
    },
  };
  worlds.push(world);
  for (const s of SUBSCRIBERS) await addActiveSubscriber(world.db, s, new Date('2026-11-29T00:00:00Z'));
  return world;
}

async function startServer(world: World) {
  world.server = await startNextProcess({ port: world.port, env: world.env });
}

async function killServer(world: World) {
  const server = world.server;
  if (!server) return;
  world.server = null;
  await server.kill('SIGKILL');
  world.logs.push(server.output());
}

async function cron(world: World, now: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${world.server!.url}/api/cron?now=${encodeURIComponent(now)}`, {
    headers: { authorization: `Bearer ${CRON_SECRET}` },
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, body: await res.json() };
}

async function inbox(world: World): Promise<SinkMessage[]> {
  const res = await fetch(`${sinkUrl()}/sink/messages?${new URLSearchParams({ apiKey: world.apiKey })}`);
  return ((await res.json()) as { messages: SinkMessage[] }).messages;
}

async function setFaults(world: World, faults: SinkFaults) {
  const res = await fetch(`${sinkUrl()}/sink/faults`, {
    method: 'POST',
    body: JSON.stringify({ apiKey: world.apiKey, ...faults }),
    headers: { 'content-type': 'application/json' },
  });
  if (!res.ok) throw new Error(`setting sink faults failed: ${res.status} ${await res.text()}`);
}

async function clearFaults(world: World) {
  const res = await fetch(`${sinkUrl()}/sink/faults?${new URLSearchParams({ apiKey: world.apiKey })}`, { method: 'DELETE' });
  if (!res.ok) throw new Error(`clearing sink faults failed: ${res.status}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs: number, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

type Row = { id: string; kind: Kind; status: string; lastError: string | null; attempts: number; to: string };
async function outboxRows(world: World): Promise<Row[]> {
  const snap = await world.db.collection('emails').get();
  return snap.docs.map((d) => ({
    id: d.id,
    kind: d.get('kind'),
    status: d.get('status'),
    lastError: d.get('lastError') ?? null,
    attempts: d.get('attempts') ?? 0,
    // A sent row keeps no payload: its recipient is the subscriber its uid names.
    to: Buffer.from(String(d.get('uid')), 'base64url').toString(),
  }));
}

/** Each delivery with its outcome as the subscriber sees it (the outbox row's status once it is in an email). */
async function deliveries(world: World) {
  const snap = await deliveriesCollection(world.db).get();
  const outcomes = await readDeliveryOutcomes(
    world.db,
    snap.docs.map((d) => d.data()),
  );
  return outcomes.map((o) => ({ id: `${o.uid}_${o.jobId}`, mode: o.mode, status: o.status, reason: o.reason }));
}

/**
 * Starts a run with the provider slowed down, waits until a row of `kind` is being sent, lets the
 * request reach the provider, and SIGKILLs the server while the provider has not answered yet.
 * Then waits until the provider has finished what it was handed (it accepts those emails: the
 * dead server never learns it) and clears the faults.
 */
async function killMidSend(world: World, input: { now: string; kind: Kind }) {
  const before = (await inbox(world)).length;
  await setFaults(world, { latencyMs: LATENCY_MS });
  const call = cron(world, input.now).then(
    (r) => ({ answered: true as const, status: r.status }),
    (e: unknown) => ({ answered: false as const, error: String(e) }),
  );
  await waitFor(
    `an emails row of kind ${input.kind} in status sending`,
    async () => (await outboxRows(world)).some((r) => r.kind === input.kind && r.status === 'sending'),
    30_000,
  );
  // The lease is written just before the request leaves; give it time to reach the sink, well inside its latency.
  await sleep(1_000);
  const receivedBeforeKill = (await inbox(world)).length - before;
  const sendingAtKill = (await outboxRows(world)).filter((r) => r.kind === input.kind && r.status === 'sending').length;
  const interrupted = (await outboxRows(world)).filter((r) => r.status === 'pending' || r.status === 'sending').map((r) => r.id);
  await killServer(world);
  const killedAt = Date.now();
  const outcome = await call;
  await clearFaults(world);
  // The sink finishes the requests it was handed before the kill: accepted, stored, keyed — and
  // never answered. All of them landed by killedAt + LATENCY_MS; count them after that.
  await sleep(Math.max(0, killedAt + LATENCY_MS + 500 - Date.now()));
  const acceptedAfterKill = (await inbox(world)).length - before - receivedBeforeKill;
  return { outcome, receivedBeforeKill, sendingAtKill, acceptedAfterKill, interrupted: new Set(interrupted) };
}

type Tally = { attempted: number; received: number; duplicated: number; lost: number; recovered: number };

/**
 * Counted like a queue checker (docs/design.md §2.9), per kind. attempted: outbox rows handed to the
 * dispatcher; received: emails the sink stored; duplicated: a second email of the kind to one
 * recipient, or a posting repeated across them; lost: a due recipient who received nothing;
 * recovered: rows interrupted by the kill that ended `sent`.
 */
function tally(kind: Kind, rows: Row[], messages: SinkMessage[], interrupted: Set<string>): Tally {
  const due = rows.filter((r) => r.kind === kind);
  const mine = messages.filter((m) => kindOf(m) === kind);
  const byRecipient = new Map<string, SinkMessage[]>();
  for (const m of mine) for (const to of m.to) byRecipient.set(to, [...(byRecipient.get(to) ?? []), m]);
  let duplicated = 0;
  for (const list of byRecipient.values()) {
    duplicated += list.length - 1;
    const titles = list.flatMap(titlesIn);
    duplicated += titles.length - new Set(titles).size;
  }
  return {
    attempted: due.filter((r) => r.attempts > 0).length,
    received: mine.length,
    duplicated,
    lost: due.filter((r) => !byRecipient.has(r.to)).length,
    recovered: due.filter((r) => interrupted.has(r.id) && r.status === 'sent').length,
  };
}

const format = (label: string, t: Tally) =>
  `${label} attempted=${t.attempted} received=${t.received} duplicated=${t.duplicated} lost=${t.lost} recovered=${t.recovered}`;

/** Every row ends final: sent, or failed with unknown_outcome (a visible loss). Never pending/sending; no delivery left sending. */
async function expectFinalLedger(world: World) {
  const rows = await outboxRows(world);
  for (const row of rows) {
    if (row.status === 'sent') continue;
    expect(row, `emails/${row.id} must be final`).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^unknown_outcome/) });
  }
  const lines = await deliveries(world);
  expect(lines.filter((d) => d.status === 'sending')).toEqual([]);
  return { rows, lines };
}

function dumpLogsOnFailure(world: World) {
  onTestFailed(() => {
    console.log(
      `--- next start output (${world.name}) ---\n${[...world.logs, world.server?.output() ?? ''].join('\n--- restart ---\n').slice(-8000)}`,
    );
  });
}

beforeAll(async () => {
  ({ durationMs: buildMs } = await ensureTestBuild(inject('runStamp')));
}, 240_000);

afterAll(async () => {
  for (const world of worlds) {
    await world.server?.kill('SIGKILL').catch(() => {});
    await clearFaults(world).catch(() => {});
    await world.feeds.close().catch(() => {});
    await world.db.terminate().catch(() => {});
  }
  console.log(
    `[process-kill] build ${(buildMs / 1000).toFixed(1)} s, total ${((Date.now() - startedAt) / 1000).toFixed(1)} s · ${summary.join(' · ')}`,
  );
}, 30_000);

describe('the real Next server killed with SIGKILL mid-send, restarted, run again', () => {
  it('instant alerts: no subscriber gets a duplicate, every alert arrives once, every row ends final', async () => {
    const world = await createWorld('instant');
    dumpLogsOnFailure(world);
    await startServer(world);

    const kill = await killMidSend(world, { now: at('06:00'), kind: 'alert' });
    expect(kill.outcome.answered, 'the killed run never answers').toBe(false);
    expect(kill.receivedBeforeKill, 'the kill lands before the provider answered anything').toBe(0);
    expect(kill.sendingAtKill).toBeGreaterThan(0);
    expect(kill.acceptedAfterKill, 'some alerts were mid-send: accepted after the server died').toBeGreaterThan(0);
    expect(kill.acceptedAfterKill).toBeLessThanOrEqual(INSTANT.length);
    const { interrupted } = kill;
    expect(interrupted.size, 'every alert row was claimed and left unfinished by the kill').toBe(INSTANT.length);

    await startServer(world);
    // Past the lock (LOCK_TTL_MS, 10 min) and the lease (120 s): the rows left `sending` are taken over, inside the key window.
    const first = await cron(world, at('06:15'));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ instantEmails: INSTANT.length, failures: 0, partial: false });
    const second = await cron(world, at('06:30'));
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ emailsSent: 0, instantDeliveries: 0, failures: 0 });

    const messages = await inbox(world);
    const alerts = messages.filter((m) => kindOf(m) === 'alert');
    for (const s of INSTANT) {
      const received = alerts.filter((m) => m.to.includes(s.email));
      expect(received, `${s.email} gets exactly one alert`).toHaveLength(1);
      const titles = received.flatMap(titlesIn);
      expect(new Set(titles).size, `${s.email} never sees a posting twice`).toBe(titles.length);
      expect([...titles].sort(), `${s.email} gets every posting due`).toEqual(expectedTitles(s));
    }
    expect(
      messages.filter((m) => kindOf(m) !== 'alert'),
      'no digest before 08:00, nothing unexpected',
    ).toEqual([]);

    const { rows, lines } = await expectFinalLedger(world);
    expect(rows.filter((r) => r.kind === 'alert').map((r) => r.status)).toEqual(INSTANT.map(() => 'sent'));
    const instantLines = lines.filter((d) => d.mode === 'instant');
    expect(instantLines.length).toBe(INSTANT.reduce((n, s) => n + expectedTitles(s).length, 0));
    expect(instantLines.filter((d) => d.status !== 'sent')).toEqual([]);
    expect(lines.filter((d) => d.mode === 'daily').every((d) => d.status === 'queued')).toBe(true);

    const t = tally('alert', rows, messages, interrupted);
    summary.push(format('alert', t));
    expect(t).toEqual({ attempted: INSTANT.length, received: INSTANT.length, duplicated: 0, lost: 0, recovered: INSTANT.length });
  }, 120_000);

  it('daily digest: one digest per daily subscriber for the day, rows and items sent', async () => {
    const world = await createWorld('digest');
    dumpLogsOnFailure(world);
    await startServer(world);

    const queuedItems = DAILY.reduce((n, s) => n + expectedTitles(s).length, 0);
    const early = await cron(world, at('06:00'));
    expect(early.status).toBe(200);
    expect(early.body).toMatchObject({ instantEmails: INSTANT.length, queued: queuedItems, digests: 0 });
    const alertsBefore = (await inbox(world)).length;
    expect(alertsBefore).toBe(INSTANT.length);

    const kill = await killMidSend(world, { now: at('08:05'), kind: 'digest' });
    expect(kill.outcome.answered).toBe(false);
    expect(kill.receivedBeforeKill).toBe(0);
    expect(kill.sendingAtKill).toBeGreaterThan(0);
    expect(kill.acceptedAfterKill, 'some digests were mid-send: accepted after the server died').toBeGreaterThan(0);
    expect(kill.acceptedAfterKill).toBeLessThanOrEqual(DAILY.length);
    const { interrupted } = kill;
    expect(interrupted.size, 'every digest row was claimed and left unfinished by the kill').toBe(DAILY.length);

    await startServer(world);
    const retry = await cron(world, at('08:20'));
    expect(retry.status).toBe(200);
    // Rows already accepted are re-sent with the same key and the same bytes: the provider answers with the first id and stores nothing.
    expect(retry.body).toMatchObject({ digests: DAILY.length, instantEmails: 0, failures: 0, partial: false });
    const later = await cron(world, at('08:35'));
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({ emailsSent: 0, digests: 0, failures: 0 });

    const messages = await inbox(world);
    const digests = messages.filter((m) => kindOf(m) === 'digest');
    for (const s of DAILY) {
      const received = digests.filter((m) => m.to.includes(s.email));
      expect(received, `${s.email} gets exactly one digest for ${DAY}`).toHaveLength(1);
      expect(received[0].text, "the digest is for the run's UTC day").toContain('Monday 30 November');
      expect(titlesIn(received[0]).sort(), `${s.email}'s digest carries every queued posting`).toEqual(expectedTitles(s));
    }
    expect(messages.filter((m) => kindOf(m) === 'alert')).toHaveLength(INSTANT.length);

    const { rows, lines } = await expectFinalLedger(world);
    expect(rows.filter((r) => r.kind === 'digest').map((r) => r.status)).toEqual(DAILY.map(() => 'sent'));
    expect(rows.every((r) => r.status === 'sent')).toBe(true);
    const dailyLines = lines.filter((d) => d.mode === 'daily');
    expect(dailyLines).toHaveLength(queuedItems);
    expect(dailyLines.filter((d) => d.status !== 'sent')).toEqual([]);

    const t = tally('digest', rows, messages, interrupted);
    summary.push(format('digest', t));
    expect(t).toEqual({ attempted: DAILY.length, received: DAILY.length, duplicated: 0, lost: 0, recovered: DAILY.length });
  }, 120_000);
});
