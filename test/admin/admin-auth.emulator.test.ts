import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOGIN_LIMIT } from '../../lib/admin/login-limit';
import { createSessionValue, SESSION_TTL_MS } from '../../lib/admin/session';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { adminClient, asCookie, type AdminClient, type Answer } from './admin-fixture';

/**
 * /admin without a valid session shows the login form and nothing else, and no action runs
 * without a session and the app's own Origin. The store is compared before and after.
 */
const RUN_AT = '2026-11-30T06:00:00Z';
const NOW = new Date('2026-11-30T07:00:00Z');
const ADA = 'ada@example.com';
const BEA = 'bea@example.com';

let h: Harness;
let admin: AdminClient;
let deadKey: string;
let runId: string;

beforeEach(async () => {
  // One proxy in front: the fixture's X-Forwarded-For is the address it appended.
  h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
  await h.subscribe({ email: ADA, keywords: ['react'] });
  await h.subscribe({ email: BEA, keywords: ['rust'], mode: 'daily' });
  h.serveFeed(postingsAbout('react', 2, { at: new Date(RUN_AT) }));
  await h.setFaults({ failNext: { count: 1, status: 422, name: 'validation_error' } });
  const run = await h.cron({ now: RUN_AT });
  runId = run.body.runId;
  deadKey = (await h.db.collection('emails').where('status', '==', 'dead').get()).docs[0].id;
  admin = adminClient(h, NOW);
});
afterEach(async () => h.close());

const STORE = ['users', 'emails', 'deliveries', 'runs', 'locks', 'jobs'];

/** Nothing the dashboard or a lookup would show: no address, no run, no email key. */
function expectLoginOnly(res: Answer) {
  expect(res.body).toContain('action="/admin/login"');
  expect(res.body).toContain('type="password"');
  for (const secret of [ADA, BEA, runId, deadKey, subscriberId(ADA), 'validation_error', h.config.ADMIN_SECRET])
    expect(res.body).not.toContain(secret);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
}

const bad = {
  'no cookie': () => undefined,
  'a garbage cookie': () => 'scout_admin=let-me-in',
  'an expired cookie': () =>
    `scout_admin=${createSessionValue({ secret: h.config.ADMIN_SECRET, now: new Date(NOW.getTime() - SESSION_TTL_MS - 1) }).value}`,
  'a cookie whose expiry was moved': () => {
    const [v, id, exp, mac] = createSessionValue({
      secret: h.config.ADMIN_SECRET,
      now: new Date(NOW.getTime() - SESSION_TTL_MS),
    }).value.split('.');
    return `scout_admin=${v}.${id}.${Number(exp) + 3_600_000}.${mac}`;
  },
  'a cookie signed by the old secret': () => `scout_admin=${createSessionValue({ secret: 'the-old-admin-secret-0123', now: NOW }).value}`,
  // Signed with the right secret, but naming a session the server never opened (or has ended).
  'a signed cookie for a session the server does not hold': () =>
    `scout_admin=${createSessionValue({ secret: h.config.ADMIN_SECRET, now: NOW }).value}`,
  'a cookie of the old format (v1, no session id)': () => 'scout_admin=v1.1796050800000.5UDvVkmnAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
};

describe('without a valid session', () => {
  it.each(Object.keys(bad))('GET /admin with %s shows only the login form', async (name) => {
    const cookie = bad[name as keyof typeof bad]();
    const res = await admin.get({ cookie });
    expect(res.status).toBe(200);
    expectLoginOnly(res);
    // A cookie that did not verify is cleared.
    if (cookie)
      expect(res.setCookies).toEqual([expect.stringMatching(/^scout_admin=; Max-Age=0; Path=\/admin; HttpOnly; SameSite=Strict/)]);
  });

  it.each(Object.keys(bad))('a lookup and every action POST with %s answer 401 and change nothing', async (name) => {
    const cookie = bad[name as keyof typeof bad]();
    const before = await h.dump(STORE);
    const inbox = (await h.inbox()).length;

    const lookup = await admin.post('/admin', { email: ADA }, { cookie });
    expect(lookup.status).toBe(401);
    expectLoginOnly(lookup);
    for (const fields of [
      { action: 'retry', emailKey: deadKey },
      { action: 'pause', uid: subscriberId(ADA) },
      { action: 'resend-digest', uid: subscriberId(BEA) },
      { action: 'resume', uid: subscriberId(ADA) },
    ]) {
      const res = await admin.post('/admin/actions', fields, { cookie });
      expect(res.status, fields.action).toBe(401);
      expectLoginOnly(res);
      expect(res.setCookies.some((c) => c.startsWith('scout_admin_flash='))).toBe(false);
    }

    expect(await h.dump(STORE)).toEqual(before);
    expect(await h.inbox()).toHaveLength(inbox);
  });
});

describe('with a valid session but from another origin (CSRF)', () => {
  it.each(['https://evil.example', 'null', 'http://localhost:3001'])(
    'Origin %s: actions and lookups answer 403 and change nothing',
    async (origin) => {
      const before = await h.dump(STORE);
      const cookie = await admin.session();
      for (const fields of [
        { action: 'retry', emailKey: deadKey },
        { action: 'pause', uid: subscriberId(ADA) },
      ]) {
        const res = await admin.post('/admin/actions', fields, { cookie, origin });
        expect(res.status).toBe(403);
        expect(res.body).not.toContain(deadKey);
      }
      const lookup = await admin.post('/admin', { email: ADA }, { cookie, origin });
      expect(lookup.status).toBe(403);
      expect(lookup.body).not.toContain('react');
      const logout = await admin.post('/admin/logout', {}, { cookie, origin });
      expect(logout.status).toBe(403);
      expect(logout.setCookies).toEqual([]);
      expect(await h.dump(STORE)).toEqual(before);
    },
  );

  it('Origin: null (a form on a no-referrer page) passes only with Sec-Fetch-Site: same-origin; no Origin only if not cross-site', async () => {
    const cookie = await admin.session();
    const pause = { action: 'pause', uid: subscriberId(ADA) };
    const status = async () => (await h.db.collection('users').doc(subscriberId(ADA)).get()).get('status');
    for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { 'sec-fetch-site': 'none' }]) {
      expect((await admin.post('/admin/actions', pause, { cookie, origin: 'null', headers })).status).toBe(403);
      expect((await admin.post('/admin/actions', pause, { cookie, origin: null, headers })).status).toBe(403);
    }
    expect(await status()).toBe('active');
    // What Chromium sends from our pages: Origin null, Sec-Fetch-Site same-origin.
    const fromOurPage = await admin.post('/admin/actions', pause, { cookie, origin: 'null', headers: { 'sec-fetch-site': 'same-origin' } });
    expect(fromOurPage.status).toBe(303);
    expect(await status()).toBe('paused');
    // No Origin and no Sec-Fetch-Site: not a browser form (curl with the cookie).
    const resume = await admin.post('/admin/actions', { action: 'resume', uid: subscriberId(ADA) }, { cookie, origin: null });
    expect(resume.status).toBe(303);
    expect(await status()).toBe('active');
  });
});

describe('login', () => {
  it('a wrong secret answers 401 with the form and sets no cookie; the secret is never logged', async () => {
    for (const secret of ['', 'wrong', `${h.config.ADMIN_SECRET}x`, h.config.ADMIN_SECRET.toUpperCase()]) {
      const res = await admin.post('/admin/login', { secret }, { ip: '198.51.100.1' });
      expect(res.status).toBe(401);
      expect(res.setCookies).toEqual([]);
      expectLoginOnly(res);
      expect(res.body).toContain('That is not the admin secret.');
      if (secret) expect(res.body).not.toContain(`value="${secret}"`);
    }
    expect(admin.logs.join('\n')).not.toContain(h.config.ADMIN_SECRET);
  });

  it('the right secret sets an HttpOnly, SameSite=Strict cookie on /admin and redirects there; that cookie opens the dashboard', async () => {
    const res = await admin.post('/admin/login', { secret: h.config.ADMIN_SECRET }, { ip: '198.51.100.2' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin');
    expect(res.setCookies).toHaveLength(1);
    const [set] = res.setCookies;
    expect(set).toMatch(/^scout_admin=v2\.[A-Za-z0-9_-]{24}\.\d+\.[A-Za-z0-9_-]{43}; /);
    expect(set).toContain('; HttpOnly');
    expect(set).toContain('; SameSite=Strict');
    expect(set).toContain('; Path=/admin');
    expect(set).toContain(`; Max-Age=${SESSION_TTL_MS / 1000}`);
    expect(set).not.toContain('Secure'); // APP_URL is http here; https adds it
    expect(set).not.toContain(h.config.ADMIN_SECRET);
    expect(admin.logs.join('\n')).not.toContain(h.config.ADMIN_SECRET);

    const page = await admin.get({ cookie: asCookie(set) });
    expect(page.status).toBe(200);
    expect(page.body).toContain(runId);
  });

  it('over https the cookie is Secure', async () => {
    const secure = await createHarness({ APP_URL: 'https://scout.example.com' });
    const https = adminClient(secure, NOW);
    const res = await https.post('/admin/login', { secret: secure.config.ADMIN_SECRET }, { origin: 'https://scout.example.com' });
    await secure.close();
    expect(res.status).toBe(303);
    expect(res.setCookies[0]).toMatch(/; Secure$/);
  });

  it('from another origin it is refused (403) before the secret is even compared', async () => {
    const res = await admin.post('/admin/login', { secret: h.config.ADMIN_SECRET }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.setCookies).toEqual([]);
  });

  it(`allows ${LOGIN_LIMIT.perWindow} attempts a minute per client address, then 429 even with the right secret`, async () => {
    for (let i = 0; i < LOGIN_LIMIT.perWindow; i++)
      expect((await admin.post('/admin/login', { secret: 'guess' }, { ip: '192.0.2.9' })).status).toBe(401);
    const blocked = await admin.post('/admin/login', { secret: h.config.ADMIN_SECRET }, { ip: '192.0.2.9' });
    expect(blocked.status).toBe(429);
    expect(blocked.setCookies).toEqual([]);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not held up by it.
    expect((await admin.post('/admin/login', { secret: h.config.ADMIN_SECRET }, { ip: '192.0.2.10' })).status).toBe(303);
    // The address is kept only as a keyed hash.
    const limits = await h.db.collection('rateLimits').get();
    expect(limits.docs.map((d) => d.id).join(' ')).not.toContain('192.0.2');
    expect(JSON.stringify(limits.docs.map((d) => d.data()))).not.toContain('192.0.2');
  });

  it('logout clears the session cookie (and ends the session on the server: admin-logout.emulator.test.ts)', async () => {
    const res = await admin.post('/admin/logout', {}, { cookie: await admin.session() });
    expect(res.status).toBe(303);
    expect(res.setCookies[0]).toMatch(/^scout_admin=; Max-Age=0; Path=\/admin; HttpOnly; SameSite=Strict/);
  });
});
