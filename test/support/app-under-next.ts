import { randomBytes } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import { inject } from 'vitest';
import { createFirestore } from '../../lib/store/firestore';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { ensureTestBuild, freePort, startNextProcess, TEST_BUILD_ENV, type NextProcess } from './next-process';
import { rssFeed } from '../../scripts/sample-feed/rss-feed';

export const APP_CRON_SECRET = 'under-next-cron-secret-0123456789';

export type AppUnderNext = { server: NextProcess; db: Firestore; feeds: FeedServer; stop(): Promise<void> };

/**
 * The app as the platform serves it: the shared test build under `next start`, on its own
 * Firestore project of the shared emulator, the shared mail sink, and an empty feed of its own.
 */
export async function startAppUnderNext(env: Record<string, string> = {}): Promise<AppUnderNext> {
  await ensureTestBuild(inject('runStamp'));
  const suffix = randomBytes(5).toString('hex');
  const projectId = `scout-next-${suffix}`;
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  const db = createFirestore({ projectId });
  const feeds = await startFeedServer({ port: 0 });
  feeds.setFeed('/jobs.xml', { body: rssFeed([]), contentType: 'application/rss+xml' });
  const port = await freePort();
  const server = await startNextProcess({
    port,
    env: {
      CRON_SECRET: APP_CRON_SECRET,
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
      ...env,
    },
  });
  return {
    server,
    db,
    feeds,
    async stop() {
      await server.stop();
      await feeds.close();
    },
  };
}
