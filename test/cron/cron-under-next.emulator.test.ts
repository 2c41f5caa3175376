import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CRON_SECRET, startAppUnderNext, type AppUnderNext } from '../support/app-under-next';

/** The endpoint as the platform serves it, where Next derives HEAD from GET and parses the query itself. */
let app: AppUnderNext;

beforeAll(async () => {
  app = await startAppUnderNext();
}, 240_000);

afterAll(async () => app?.stop());

const withSecret = { authorization: `Bearer ${APP_CRON_SECRET}` };
const runCount = async () => (await app.db.collection('runs').get()).size;

describe('GET /api/cron under next start', () => {
  it('HEAD with the secret never runs a cycle: 405, no run recorded', async () => {
    const res = await fetch(`${app.server.url}/api/cron`, { method: 'HEAD', headers: withSecret });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(await runCount()).toBe(0);
    expect(app.feeds.requests()).toHaveLength(0);
  });

  // `?__proto__=x` never reaches the handler under Next (its query parser drops the key): proxy.ts refuses it.
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('?%s=x is an unknown parameter: 400, no run', async (name) => {
    const res = await fetch(`${app.server.url}/api/cron?${name}=x`, { headers: withSecret });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid query', fields: { query: `unknown parameter(s): ${name}` } });
    expect(await runCount()).toBe(0);
  });

  it('a plain GET with the secret runs (the server above is a working one)', async () => {
    const res = await fetch(`${app.server.url}/api/cron`, { headers: withSecret });
    expect(res.status).toBe(200);
    expect(await runCount()).toBe(1);
    // The built server fetched the loopback feed through its address guard (FEED_ALLOW_PRIVATE_ADDRESSES).
    expect((await res.json()).feeds).toEqual([expect.objectContaining({ status: 'ok' })]);
    expect(app.feeds.requests()).toHaveLength(1);
  });
});
