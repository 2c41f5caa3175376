import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneLedger } from '../../lib/ops/prune-ledger';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { createHarness, type Harness } from '../support/harness';
import { adminClient, asCookie, type AdminClient } from './admin-fixture';

/**
 * Logout ends the session on the server. A cookie captured before logout (a
 * copy in another browser profile, a proxy log, a stolen laptop's cookie jar) opens nothing after.
 */
const NOW = new Date('2026-11-30T07:00:00Z');
const ADA = 'ada@example.com';

let h: Harness;
let admin: AdminClient;
beforeEach(async () => {
  h = await createHarness();
  await h.subscribe({ email: ADA, keywords: ['react'] });
  admin = adminClient(h, NOW);
});
afterEach(async () => h.close());

async function logIn(ip: string): Promise<string> {
  const res = await admin.post('/admin/login', { secret: h.config.ADMIN_SECRET }, { ip });
  expect(res.status).toBe(303);
  return asCookie(res.setCookies[0]);
}

describe('logout', () => {
  it('a cookie captured before logout is refused after it: GET shows the login form, POSTs answer 401 and change nothing', async () => {
    const captured = await logIn('198.51.100.1');
    expect((await admin.get({ cookie: captured })).body).toContain('action="/admin/logout"');

    const out = await admin.post('/admin/logout', {}, { cookie: captured });
    expect(out.status).toBe(303);
    expect(out.setCookies[0]).toMatch(/^scout_admin=; Max-Age=0; /);

    const page = await admin.get({ cookie: captured });
    expect(page.status).toBe(200);
    expect(page.body).toContain('action="/admin/login"');
    expect(page.body).not.toContain('action="/admin/logout"');
    expect(page.setCookies).toEqual([expect.stringMatching(/^scout_admin=; Max-Age=0; /)]);

    const pause = await admin.post('/admin/actions', { action: 'pause', uid: subscriberId(ADA) }, { cookie: captured });
    expect(pause.status).toBe(401);
    const lookup = await admin.post('/admin', { email: ADA }, { cookie: captured });
    expect(lookup.status).toBe(401);
    expect(lookup.body).not.toContain('react');
    expect((await h.db.collection('users').doc(subscriberId(ADA)).get()).get('status')).toBe('active');
  });

  it('ends only its own session: another login stays open', async () => {
    const laptop = await logIn('198.51.100.1');
    const phone = await logIn('198.51.100.2');
    await admin.post('/admin/logout', {}, { cookie: laptop });
    expect((await admin.get({ cookie: laptop })).body).toContain('action="/admin/login"');
    expect((await admin.get({ cookie: phone })).body).toContain('action="/admin/logout"');
  });

  it('logging in again after a logout opens a new session', async () => {
    const first = await logIn('198.51.100.1');
    await admin.post('/admin/logout', {}, { cookie: first });
    const second = await logIn('198.51.100.1');
    expect(second).not.toBe(first);
    expect((await admin.get({ cookie: second })).body).toContain('action="/admin/logout"');
    expect((await admin.get({ cookie: first })).body).toContain('action="/admin/login"');
  });
});

describe('ended sessions do not pile up', () => {
  it('a session carries expireAt for the TTL policy, and scout prune deletes the expired ones only', async () => {
    await logIn('198.51.100.1');
    const later = adminClient(h, new Date(NOW.getTime() + 9 * 3_600_000));
    const res = await later.post('/admin/login', { secret: h.config.ADMIN_SECRET }, { ip: '198.51.100.2' });
    const sessions = await h.db.collection('adminSessions').get();
    expect(sessions.docs.map((d) => d.get('expireAt').toDate().getTime() - d.get('createdAt').toDate().getTime())).toEqual([
      8 * 3_600_000,
      8 * 3_600_000,
    ]);
    const report = await pruneLedger(h.db, { now: new Date(NOW.getTime() + 9 * 3_600_000), limit: 100 });
    expect(report.deleted.adminSessions).toBe(1);
    expect((await later.get({ cookie: asCookie(res.setCookies[0]) })).body).toContain('action="/admin/logout"');
  });
});
