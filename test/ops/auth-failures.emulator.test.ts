import { afterEach, describe, expect, it } from 'vitest';
import { LOGIN_LIMIT } from '../../lib/admin/login-limit';
import { handleCronRequest } from '../../lib/cron/handle-cron-request';
import type { AppDeps } from '../../lib/wiring/app-deps';
import { AUTH_FAILURE_LOG } from '../../lib/ops/auth-failures';
import { handleSignupRequest } from '../../lib/subscriptions/handle-signup-request';
import { adminClient } from '../admin/admin-fixture';
import { CRON_SECRET, createHarness, type Harness } from '../support/harness';

/**
 * Failed cron authentications and failed logins are logged with a keyed
 * hash of the trusted client address, at most so many lines a minute per instance (then a
 * summary), and counted in Firestore for the ops page.
 */
const NOW = new Date('2026-11-30T07:00:00Z');
let h: Harness;

afterEach(async () => h?.close());

type Line = { event: string } & Record<string, unknown>;

function withClock(deps: AppDeps) {
  let wall = NOW.getTime();
  const lines: Line[] = [];
  return {
    deps: {
      ...deps,
      wallClock: () => wall,
      log: (event: string, fields: Record<string, unknown> = {}) => void lines.push({ event, ...fields }),
    },
    lines,
    advance: (ms: number) => void (wall += ms),
    at: () => new Date(wall),
  };
}

const cronCall = (deps: AppDeps, headers: Record<string, string>) =>
  handleCronRequest(new Request('http://localhost/api/cron', { headers }), deps).then((r) => r.status);

/** The row of the ops page's "Refused at the door" table: its label, then this hour's and today's counts. */
const row = (page: string, label: string) => {
  const match = page.match(new RegExp(`<th scope="row">${label}</th><td class="num">(\\d+)</td><td class="num">(\\d+|—)</td>`));
  if (!match) throw new Error(`no row "${label}" in the ops page`);
  return [Number(match[1]), match[2] === '—' ? null : Number(match[2])];
};

describe('failed cron authentications', () => {
  it('one line each with a keyed hash of the client, at most so many a minute and then a summary; every one counted on the ops page', async () => {
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
    const time = withClock(h.deps);
    const calls = AUTH_FAILURE_LOG.linesPerMinute + 10;
    for (let i = 0; i < calls; i++)
      expect(
        await cronCall(time.deps, { authorization: 'Bearer wrong-secret', 'x-forwarded-for': `10.0.0.${i}, 203.0.113.${i % 2}` }),
      ).toBe(401);

    const refused = time.lines.filter((l) => l.event === 'cron.unauthorized');
    expect(refused).toHaveLength(AUTH_FAILURE_LOG.linesPerMinute);
    for (const line of refused) expect(line.client).toMatch(/^[\w-]{16}$/);
    // Two clients, two hashes; the forged entries do not make more.
    expect(new Set(refused.map((l) => l.client)).size).toBe(2);
    const text = JSON.stringify(time.lines);
    for (const secret of ['203.0.113', '10.0.0', 'wrong-secret', CRON_SECRET]) expect(text).not.toContain(secret);

    // The next minute: the count of the lines left out, then lines again.
    time.advance(60_000);
    expect(await cronCall(time.deps, { 'x-cron-secret': 'another-wrong-one', 'x-forwarded-for': '203.0.113.5' })).toBe(401);
    expect(time.lines.filter((l) => l.event === 'auth.failures_suppressed')).toEqual([
      expect.objectContaining({ kind: 'cron', count: 10, since: NOW.toISOString() }),
    ]);
    expect(time.lines.filter((l) => l.event === 'cron.unauthorized')).toHaveLength(AUTH_FAILURE_LOG.linesPerMinute + 1);

    // Nothing else was written: no run, no lock.
    expect((await h.db.collection('runs').get()).size).toBe(0);
    expect((await h.db.collection('locks').get()).size).toBe(0);

    const admin = adminClient(h, time.at());
    const page = (await admin.get({ cookie: await admin.session() })).body;
    expect(row(page, 'Failed cron calls')).toEqual([calls + 1, calls + 1]);
    expect(row(page, 'Failed logins')).toEqual([0, 0]);
  });

  it('a right secret is not counted or logged as a failure', async () => {
    h = await createHarness();
    const time = withClock(h.deps);
    expect(await cronCall(time.deps, { authorization: `Bearer ${CRON_SECRET}` })).toBe(200);
    expect(time.lines.filter((l) => l.event === 'cron.unauthorized')).toEqual([]);
    const admin = adminClient(h, NOW);
    expect(row((await admin.get({ cookie: await admin.session() })).body, 'Failed cron calls')).toEqual([0, 0]);
  });
});

describe('failed logins on the ops page', () => {
  it('wrong secrets and refused attempts are counted this hour and today; a lock is shown with its end', async () => {
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
    const admin = adminClient(h, NOW);
    for (let i = 0; i < LOGIN_LIMIT.failuresPerWindow; i++)
      await admin.post('/admin/login', { secret: 'guess' }, { headers: { 'x-forwarded-for': `203.0.113.${i}` } });
    // Refused while locked: counted as failed logins too.
    await admin.post('/admin/login', { secret: 'guess' }, { headers: { 'x-forwarded-for': '203.0.113.250' } });

    const page = (await admin.get({ cookie: await admin.session() })).body;
    expect(row(page, 'Failed logins')).toEqual([LOGIN_LIMIT.failuresPerWindow + 1, LOGIN_LIMIT.failuresPerWindow + 1]);
    expect(page).toContain('Login is locked until 2026-11-30 07:15:00 UTC');

    // Later the same day: the hour is new, the day is not.
    const later = adminClient(h, new Date('2026-11-30T09:30:00Z'));
    const laterPage = (await later.get({ cookie: await later.session() })).body;
    expect(row(laterPage, 'Failed logins')).toEqual([0, LOGIN_LIMIT.failuresPerWindow + 1]);
    expect(laterPage).not.toContain('Login is locked');
  });

  it('signup emails this hour are shown against their cap', async () => {
    h = await createHarness({}, { SIGNUP_CONFIRMATIONS_PER_HOUR: 50 });
    for (const email of ['a@example.com', 'b@example.com'])
      await handleSignupRequest(
        new Request('http://localhost:3000/api/signup', {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: 'http://localhost:3000' },
          body: JSON.stringify({ email, keywords: 'react', mode: 'instant' }),
        }),
        { ...h.deps, now: NOW },
      );
    const admin = adminClient(h, NOW);
    const page = (await admin.get({ cookie: await admin.session() })).body;
    expect(row(page, 'Signup emails \\(cap 50 an hour\\)')).toEqual([2, null]);
  });
});
