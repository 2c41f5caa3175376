import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTestBuild, freePort, startNextProcess, TEST_BUILD_ENV, type NextProcess } from '../support/next-process';

/**
 * A deploy with a bad or missing variable, as a newcomer makes it: the real app (`next start` of
 * the run's shared build) must still start, answer every route with a 503 that names the
 * variables at fault — their names, never their values — and name them in its log.
 */

/** Secret-looking and too short (CRON_SECRET needs 16 characters): its value must appear nowhere. */
const LEAKY = 'sk_live_hunter2';

const JSON_ROUTES: [method: string, path: string][] = [
  ['GET', '/api/cron'],
  ['POST', '/api/signup'],
  ['POST', '/api/preview'],
  ['POST', '/api/telegram'],
  ['GET', '/admin'],
  ['POST', '/admin'],
  ['POST', '/admin/login'],
  ['POST', '/admin/logout'],
  ['POST', '/admin/actions'],
];
/** The subscriber's pages keep their own page (a person reads it), with the same status. */
const PAGE_ROUTES: [method: string, path: string][] = [
  ['GET', '/confirm?token=t'],
  ['POST', '/confirm?token=t'],
  ['GET', '/preferences?token=t'],
  ['POST', '/preferences?token=t'],
  ['GET', '/unsubscribe?token=t'],
  ['POST', '/unsubscribe?token=t'],
  ['GET', '/not-a-fit?token=t'],
  ['POST', '/not-a-fit?token=t'],
  ['GET', '/archive?token=t'],
];

let server: NextProcess;

beforeAll(async () => {
  await ensureTestBuild(inject('runStamp'));
  const port = await freePort();
  server = await startNextProcess({
    port,
    readyStatus: 'any',
    env: {
      CRON_SECRET: LEAKY,
      LINK_SECRET: 'misconfigured-link-secret-0123456789',
      ADMIN_SECRET: 'misconfigured-admin-secret-0123456789',
      APP_URL: `http://127.0.0.1:${port}`,
      MAIL_FROM: 'Scout <alerts@scout.test>',
      RESEND_API_KEY: 're_misconfigured',
      RESEND_BASE_URL: inject('mailSinkUrl'),
      FIREBASE_PROJECT_ID: 'scout-misconfigured',
      // No FIREBASE_SERVICE_ACCOUNT, no emulator, no opt-in to default credentials.
      METADATA_SERVER_DETECTION: 'none',
      FEED_URLS: 'http://127.0.0.1:9/jobs.xml',
      ...TEST_BUILD_ENV,
    },
  });
}, 300_000);

afterAll(async () => server?.stop());

const call = async (method: string, path: string) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', origin: server.url },
    body: method === 'POST' ? '{}' : undefined,
    redirect: 'manual',
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
};

describe('a server started with a bad and a missing variable', () => {
  it('answers every API and ops route 503 with the names of the variables at fault', async () => {
    for (const [method, path] of JSON_ROUTES) {
      const res = await call(method, path);
      expect(res.status, `${method} ${path}`).toBe(503);
      expect(JSON.parse(res.body), `${method} ${path}`).toEqual({
        error: 'server misconfigured',
        variables: ['CRON_SECRET', 'FIREBASE_SERVICE_ACCOUNT'],
      });
    }
  });

  it("answers the subscriber's pages 503 with their own page", async () => {
    for (const [method, path] of PAGE_ROUTES) {
      const res = await call(method, path);
      expect(res.status, `${method} ${path}`).toBe(503);
      expect(res.type, `${method} ${path}`).toContain('text/html');
      expect(res.body).not.toContain(LEAKY);
    }
  });

  it('answers the private feed 503 in plain text, so a feed reader tries again', async () => {
    const res = await call('GET', '/feed?token=t');
    expect(res.status).toBe(503);
    expect(res.type).toContain('text/plain');
    expect(res.body).not.toContain(LEAKY);
  });

  it('keeps running, names each variable in its log, and never prints a value', async () => {
    await call('GET', '/api/cron');
    const log = server.output();
    expect(log).toContain('CRON_SECRET must be at least 16 characters');
    expect(log).toMatch(/FIREBASE_SERVICE_ACCOUNT is required/);
    expect(log).not.toContain(LEAKY);
    expect((await call('GET', '/')).status).toBe(200);
  });
});
