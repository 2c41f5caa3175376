import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_LIMIT } from '../../lib/admin/login-limit';
import { SIGNUP_LIMITS } from '../../lib/http/rate-limit';
import { startAppUnderNext, type AppUnderNext } from '../support/app-under-next';
import { startWellInsideWindow } from '../support/fixed-window';

/**
 * TRUSTED_PROXY_HOPS=0 as `next start` serves it: Next hands the route a client's own
 * X-Forwarded-For unchanged (it fills in the socket's peer only when there is none), so the app
 * trusts no header and every caller is one client. A per-client limit would then be everyone's,
 * so none applies: the mailbox's allowance and the global caps hold instead, and no caller's
 * requests (forged headers or not) close the form or the login for the others.
 */
let app: AppUnderNext;

beforeAll(async () => {
  app = await startAppUnderNext();
}, 240_000);

afterAll(async () => app?.stop());

/** Longer than a burst of a few dozen requests takes, even on a loaded machine. */
const BURST_MS = 15_000;

const forged = (i: number) => ({ 'x-forwarded-for': `198.51.100.${i}`, 'x-real-ip': `198.51.100.${i}` });

describe('under next start with TRUSTED_PROXY_HOPS=0', () => {
  it('signups past the hourly per-client allowance, with a forged X-Forwarded-For each, are all accepted: no one-client limit closes the form', async () => {
    await startWellInsideWindow(SIGNUP_LIMITS.clientWindowMs, BURST_MS);
    const statuses = [];
    for (let i = 0; i < SIGNUP_LIMITS.clientPerWindow + 3; i++) {
      const res = await fetch(`${app.server.url}/api/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: app.server.url, ...forged(i) },
        body: JSON.stringify({ email: `user${i}@example.com`, keywords: 'react', mode: 'instant' }),
      });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toEqual(Array(SIGNUP_LIMITS.clientPerWindow + 3).fill(202));
  });

  it('wrong admin secrets past the per-client minute, with a forged X-Forwarded-For each, are each compared: no one-client limit closes the login', async () => {
    await startWellInsideWindow(LOGIN_LIMIT.windowMs, BURST_MS);
    const statuses = [];
    for (let i = 0; i < LOGIN_LIMIT.perWindow + 3; i++) {
      const res = await fetch(`${app.server.url}/admin/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.server.url, ...forged(i) },
        body: new URLSearchParams({ secret: `guess-${i}` }).toString(),
      });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toEqual(Array(LOGIN_LIMIT.perWindow + 3).fill(401));
  });
});
