import { randomBytes } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createFirestore } from '../../lib/firestore';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { ensureTestBuild, freePort, startNextProcess, TEST_BUILD_ENV, type NextProcess } from '../support/next-process';
import { rssFeed } from '../support/rss';

/** The endpoint as the platform serves it: the built app under `next start`, where Next derives HEAD from GET. */
const CRON_SECRET = 'under-next-cron-secret-0123456789';
let server: NextProcess;
let feeds: FeedServer;
let db: Firestore;

beforeAll(async () => {
  await ensureTestBuild(inject('runStamp'));
  const suffix = randomBytes(5).toString('hex');
  const projectId = `scout-next-${suffix}`;
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  db = createFirestore({ projectId });
  feeds = await startFeedServer({ port: 0 });
  feeds.setFeed('/jobs.xml', { body: rssFeed([]), contentType: 'application/rss+xml' });
  const port = await freePort();
  server = await startNextProcess({
    port,
    env: {
      CRON_SECRET,
      LINK_SECRET: 'under-next-link-secret-0123456789',
      ADMIN_SECRET: 'under-next-admin-secret-0123456789',
      APP_URL: `http://127.0.0.1:${port}`,
      MAIL_FROM: 'Scout <alerts@scout.test>',
      RESEND_API_KEY: `re_next_${suffix}`,
      RESEND_BASE_URL: inject('mailSinkUrl'),
      FIREBASE_PROJECT_ID: projectId,
      FIRESTORE_EMULATOR_HOST: inject('firestoreEmulatorHost'),
      METADATA_SERVER_DETECTION: 'none',
      FEED_URLS: `${feeds.url}/jobs.xml`,
      FEED_ALLOW_PRIVATE_ADDRESSES: 'true',
      ...TEST_BUILD_ENV,
    },
  });
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await feeds?.close();
});

const withSecret = { authorization: `Bearer ${CRON_SECRET}` };
const runCount = async () => (await db.collection('runs').get()).size;

describe('GET /api/cron under next start', () => {
  it('HEAD with the secret never runs a cycle: 405, no run recorded', async () => {
    const res = await fetch(`${server.url}/api/cron`, { method: 'HEAD', headers: withSecret });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(await runCount()).toBe(0);
    expect(feeds.requests()).toHaveLength(0);
  });

  // (`?__proto__=x` never reaches the handler under Next: its query parser drops the key and rebuilds
  // the URL without it. The handler's own parse refuses it: see cron-query.test.ts.)
  it.each(['constructor', 'toString', 'hasOwnProperty'])('?%s=x is an unknown parameter: 400, no run', async (name) => {
    const res = await fetch(`${server.url}/api/cron?${name}=x`, { headers: withSecret });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid query', fields: { query: `unknown parameter(s): ${name}` } });
    expect(await runCount()).toBe(0);
  });

  it('a plain GET with the secret runs (the server above is a working one)', async () => {
    const res = await fetch(`${server.url}/api/cron`, { headers: withSecret });
    expect(res.status).toBe(200);
    expect(await runCount()).toBe(1);
    // The built server fetched the loopback feed through its address guard (FEED_ALLOW_PRIVATE_ADDRESSES).
    expect((await res.json()).feeds).toEqual([expect.objectContaining({ status: 'ok' })]);
    expect(feeds.requests()).toHaveLength(1);
  });
});
