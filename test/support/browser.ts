import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { inject } from 'vitest';
import type { SinkMessage } from '../../scripts/mail-sink/types';
import { ensureTestBuild, freePort, startNextProcess, TEST_BUILD_ENV, type NextProcess } from './next-process';
import type { Firestore } from 'firebase-admin/firestore';
import { createFirestore } from '../../lib/store/firestore';
import { postingsCollection, type StoredPosting } from '../../lib/feeds/postings-collection';
import { startFeedServer } from '../../scripts/sample-feed/server';
import { rssFeed } from '../../scripts/sample-feed/rss-feed';

/** Debian's Chromium; SCOUT_CHROMIUM points elsewhere (e.g. /usr/bin/google-chrome on GitHub's runners). */
const CHROMIUM = process.env.SCOUT_CHROMIUM ?? '/usr/bin/chromium';
/** `npm run docs:screenshots` writes them into docs/screenshots; an ordinary test run keeps the tree clean. */
const SHOTS = `${process.env.SCOUT_SCREENSHOT_DIR ?? join(tmpdir(), 'scout-screenshots')}/`;

export const BROWSER_CRON_SECRET = 'browser-cron-secret-0123456789';
export const BROWSER_ADMIN_SECRET = 'browser-admin-secret-0123456789';
/** The app's LINK_SECRET, for a test that builds a signed link no email carries yet. */
export const BROWSER_LINK_SECRET = 'browser-link-secret-0123456789';

/**
 * The real app (`next start` of the run's shared test build) against the run's emulator and mail
 * sink, under its own Firebase project and mail API key. `env` adds to or overrides the defaults
 * (FEED_URLS is required: each test serves its own feeds).
 */
export async function startBrowserApp(input: {
  apiKey: string;
  projectId: string;
  env: Record<string, string> & { FEED_URLS: string };
}): Promise<{ server: NextProcess; appUrl: string }> {
  process.env.METADATA_SERVER_DETECTION = 'none';
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  await ensureTestBuild(inject('runStamp'));
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const server = await startNextProcess({
    port,
    env: {
      CRON_SECRET: BROWSER_CRON_SECRET,
      LINK_SECRET: BROWSER_LINK_SECRET,
      ADMIN_SECRET: BROWSER_ADMIN_SECRET,
      APP_URL: appUrl,
      MAIL_FROM: 'Scout <alerts@scout.test>',
      RESEND_API_KEY: input.apiKey,
      RESEND_BASE_URL: inject('mailSinkUrl'),
      FIREBASE_PROJECT_ID: input.projectId,
      FIRESTORE_EMULATOR_HOST: inject('firestoreEmulatorHost'),
      METADATA_SERVER_DETECTION: 'none',
      // Each test's feed server is on loopback.
      FEED_ALLOW_PRIVATE_ADDRESSES: 'true',
      ALLOW_CLOCK_OVERRIDE: 'true',
      SEND_RATE_PER_SEC: '50',
      ...TEST_BUILD_ENV,
      ...input.env,
    },
  });
  return { server, appUrl };
}

/** What the preview's browser tests start from (startAppWithPostings). */
export type AppWithPostings = { appUrl: string; db: Firestore; browser: Browser; close(): Promise<void> };

/**
 * The real app with an empty feed, the postings of the preview's week already stored in its
 * project, and Chromium: what a test of the preview starts from. `close` stops all three.
 */
export async function startAppWithPostings(input: {
  apiKey: string;
  projectId: string;
  postings: StoredPosting[];
}): Promise<AppWithPostings> {
  const feeds = await startFeedServer({ port: 0 });
  feeds.setFeed('/jobs.xml', { body: rssFeed([]), contentType: 'application/rss+xml' });
  const { server, appUrl } = await startBrowserApp({
    apiKey: input.apiKey,
    projectId: input.projectId,
    env: { FEED_URLS: `${feeds.url}/jobs.xml` },
  });
  const db = createFirestore({ projectId: input.projectId });
  const batch = db.batch();
  for (const posting of input.postings) batch.set(postingsCollection(db).doc(posting.id), posting);
  await batch.commit();
  const browser = await launchChromium();
  return {
    appUrl,
    db,
    browser,
    async close() {
      await browser.close();
      await server.stop();
      await feeds.close();
    },
  };
}

/** Chromium as the guide prescribes (never a downloaded browser), and the screenshot folder ready. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  await mkdir(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * A full-page screenshot named for the README (`01-landing`, `12-admin`, …). `jpeg` for a long
 * series the repository keeps (a quarter of a PNG's bytes, text still crisp at quality 80).
 */
export const screenshot = (page: Page, name: string, options: { jpeg?: boolean } = {}) =>
  options.jpeg
    ? page.screenshot({ path: `${SHOTS}${name}.jpg`, fullPage: true, type: 'jpeg', quality: 80 })
    : page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });

/** One part of a page (a panel, a table) saved under the README's name, e.g. `17-source-health`. */
export const screenshotOf = (locator: Locator, name: string) => locator.screenshot({ path: `${SHOTS}${name}.png` });

/** What the mail sink received for `to` under one test's API key, oldest first. */
export async function sinkInbox(apiKey: string, to: string): Promise<SinkMessage[]> {
  const res = await fetch(`${inject('mailSinkUrl')}/sink/messages?${new URLSearchParams({ apiKey, to })}`);
  return ((await res.json()) as { messages: SinkMessage[] }).messages;
}

/** Collects every content-security-policy complaint the page logs, so a test can assert there is none. */
export function watchForCspViolations(page: Page, into: string[]): void {
  page.on('console', (message) => {
    if (/content security policy/i.test(message.text())) into.push(message.text());
  });
}
