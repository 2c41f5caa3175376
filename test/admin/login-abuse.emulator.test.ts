import { afterEach, describe, expect, it } from 'vitest';
import { LOGIN_LIMIT } from '../../lib/admin/login-limit';
import { createHarness, type Harness } from '../support/harness';
import { adminClient, asCookie } from './admin-fixture';

/**
 * The login limit keys on the trusted client address, and a global limit on
 * failed logins locks the login for everyone for a while, and says so in the log.
 */
const NOW = new Date('2026-11-30T07:00:00Z');
const minutesLater = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
let h: Harness;

afterEach(async () => h?.close());

const events = (logs: string[], event: string) => logs.map((line) => JSON.parse(line)).filter((l) => l.event === event);

describe('the per-client login limit cannot be escaped with forged addresses', () => {
  it.each([['behind one proxy (TRUSTED_PROXY_HOPS=1)', { TRUSTED_PROXY_HOPS: '1' }, (i: number) => `198.51.100.${i}, 203.0.113.77`]])(
    '%s: 30 wrong secrets from 30 forged X-Forwarded-For values are refused after the limit',
    async (_name, env, forwardedFor) => {
      h = await createHarness(env);
      const admin = adminClient(h, NOW);
      const statuses = [];
      for (let i = 0; i < 30; i++)
        statuses.push(
          (await admin.post('/admin/login', { secret: `guess-${i}` }, { headers: { 'x-forwarded-for': forwardedFor(i) } })).status,
        );
      expect(statuses).toEqual([...Array(LOGIN_LIMIT.perWindow).fill(401), ...Array(30 - LOGIN_LIMIT.perWindow).fill(429)]);
      // The right secret from the same client waits too.
      const right = await admin.post(
        '/admin/login',
        { secret: h.config.ADMIN_SECRET },
        { headers: { 'x-forwarded-for': forwardedFor(99) } },
      );
      expect(right.status).toBe(429);
      expect(right.setCookies).toEqual([]);
    },
  );
});

describe('without a trusted client address one caller cannot lock the ops page for everyone', () => {
  const forged = (i: number) => ({ headers: { 'x-forwarded-for': `198.51.100.${i}` } });

  it(`TRUSTED_PROXY_HOPS=0: ${LOGIN_LIMIT.failuresPerWindow + 1} wrong secrets from one caller do not stop the holder of a valid session`, async () => {
    h = await createHarness();
    const admin = adminClient(h, NOW);
    const cookie = await admin.session();
    for (let i = 0; i <= LOGIN_LIMIT.failuresPerWindow; i++) await admin.post('/admin/login', { secret: `guess-${i}` }, forged(i));

    // The session opens the page and its forms, and a login from it goes straight to the dashboard.
    expect((await admin.get({ cookie })).status).toBe(200);
    // (404: the lookup ran and found no such subscriber.)
    expect((await admin.post('/admin', { email: 'someone@example.com' }, { cookie })).status).toBe(404);
    const again = await admin.post('/admin/login', { secret: 'whatever' }, { cookie, ...forged(99) });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/admin');
  });

  it('the failures slow the login to one attempt per pace slot instead of closing it: the right secret gets in at the next slot', async () => {
    h = await createHarness();
    const admin = adminClient(h, NOW);
    const statuses = [];
    for (let i = 0; i < 30; i++) statuses.push((await admin.post('/admin/login', { secret: `guess-${i}` }, forged(i))).status);
    // No per-client limit (it would be everyone's): the failures up to the lock, and the one
    // attempt its first pace slot compares, are answered 401; the rest of the slot waits.
    const compared = LOGIN_LIMIT.failuresPerWindow + 1;
    expect(statuses).toEqual([...Array(compared).fill(401), ...Array(30 - compared).fill(429)]);

    const waiting = await admin.post('/admin/login', { secret: h.config.ADMIN_SECRET }, forged(100));
    expect(waiting.status).toBe(429);
    expect(Number(waiting.headers.get('retry-after'))).toBeLessThanOrEqual(LOGIN_LIMIT.lockedPaceMs / 1000);
    expect(waiting.body).toContain('Login is slowed for everyone');

    const nextSlot = adminClient(h, new Date(NOW.getTime() + LOGIN_LIMIT.lockedPaceMs));
    const opened = await nextSlot.post('/admin/login', { secret: h.config.ADMIN_SECRET }, forged(101));
    expect(opened.status).toBe(303);
    expect((await nextSlot.get({ cookie: asCookie(opened.setCookies[0]) })).status).toBe(200);
  });
});

describe('a global failed-login limit locks the login for everyone', () => {
  it(`${LOGIN_LIMIT.failuresPerWindow} failures in ${LOGIN_LIMIT.failureWindowMs / 60_000} minutes from different clients lock it for ${LOGIN_LIMIT.lockMs / 60_000} minutes, logged once; a session already open keeps working`, async () => {
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
    const admin = adminClient(h, minutesLater(1));
    const from = (i: number) => ({ headers: { 'x-forwarded-for': `203.0.113.${i}` } });
    for (let i = 0; i < LOGIN_LIMIT.failuresPerWindow; i++)
      expect((await admin.post('/admin/login', { secret: 'guess' }, from(i))).status, `failure ${i + 1}`).toBe(401);

    // Locked: even the right secret, from a client never seen before, is refused without being compared.
    const locked = await admin.post('/admin/login', { secret: h.config.ADMIN_SECRET }, from(200));
    expect(locked.status).toBe(429);
    expect(locked.setCookies).toEqual([]);
    expect(locked.body).toContain('Login is locked');
    expect(Number(locked.headers.get('retry-after'))).toBe(LOGIN_LIMIT.lockMs / 1000);
    const lockLines = events(admin.logs, 'admin.login_locked');
    expect(lockLines).toHaveLength(1);
    expect(lockLines[0]).toMatchObject({
      failures: LOGIN_LIMIT.failuresPerWindow,
      until: minutesLater(1 + LOGIN_LIMIT.lockMs / 60_000).toISOString(),
    });

    // An operator already logged in is not locked out of the page.
    const page = await admin.get({ cookie: await admin.session() });
    expect(page.status).toBe(200);
    expect(page.body).toContain('Scout ops');

    // Still locked a minute before the end; open again after it.
    const almost = adminClient(h, minutesLater(LOGIN_LIMIT.lockMs / 60_000));
    expect((await almost.post('/admin/login', { secret: h.config.ADMIN_SECRET }, from(201))).status).toBe(429);
    const after = adminClient(h, minutesLater(1 + LOGIN_LIMIT.lockMs / 60_000));
    const opened = await after.post('/admin/login', { secret: h.config.ADMIN_SECRET }, from(202));
    expect(opened.status).toBe(303);
    expect((await after.get({ cookie: asCookie(opened.setCookies[0]) })).status).toBe(200);
  });

  it('failures below the limit lock nothing', async () => {
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
    const admin = adminClient(h, NOW);
    for (let i = 0; i < LOGIN_LIMIT.failuresPerWindow - 1; i++)
      await admin.post('/admin/login', { secret: 'guess' }, { headers: { 'x-forwarded-for': `203.0.113.${i}` } });
    expect(
      (await admin.post('/admin/login', { secret: h.config.ADMIN_SECRET }, { headers: { 'x-forwarded-for': '203.0.113.99' } })).status,
    ).toBe(303);
    expect(events(admin.logs, 'admin.login_locked')).toEqual([]);
  });
});

describe('failed logins are logged with a keyed hash of the client, never the address or the secret', () => {
  it('one line per failure, the same client always the same hash, different clients different hashes', async () => {
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
    const admin = adminClient(h, NOW);
    await admin.post('/admin/login', { secret: 'guess-1' }, { headers: { 'x-forwarded-for': '10.9.9.9, 203.0.113.1' } });
    await admin.post('/admin/login', { secret: 'guess-2' }, { headers: { 'x-forwarded-for': '10.8.8.8, 203.0.113.1' } });
    await admin.post('/admin/login', { secret: 'guess-3' }, { headers: { 'x-forwarded-for': '203.0.113.2' } });
    const failed = events(admin.logs, 'admin.login').filter((l) => l.ok === false);
    expect(failed).toHaveLength(3);
    for (const line of failed) {
      expect(line.reason).toBe('wrong-secret');
      expect(line.client).toMatch(/^[\w-]{16}$/);
    }
    expect(failed[0].client).toBe(failed[1].client);
    expect(failed[2].client).not.toBe(failed[0].client);
    const all = admin.logs.join('\n');
    for (const secret of ['203.0.113', '10.9.9.9', 'guess-1', h.config.ADMIN_SECRET]) expect(all).not.toContain(secret);
  });
});
