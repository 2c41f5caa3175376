import { randomBytes } from 'node:crypto';
import { parseAtomFeed } from 'feedsmith';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { createFirestore } from '../../lib/store/firestore';
import { BROWSER_CRON_SECRET, launchChromium, screenshot, sinkInbox, startBrowserApp, watchForCspViolations } from '../support/browser';
import type { NextProcess } from '../support/next-process';
import { postingsAbout, rssFeed, type TestItem } from '../../scripts/sample-feed/rss-feed';

/**
 * The archive in Debian's Chromium against the real app (`next start`), the emulator and the mail
 * sink: three cycles send a subscriber three instant alerts over three days; the "Your archive"
 * link in the last one opens every posting of the three, newest first, in pages of 20; a search
 * finds the one posting about Rust. The private feed from the preferences page is the same list
 * as Atom, answered 304 when the reader's copy is current. The first page is saved to
 * docs/screenshots/18-archive.png.
 */
const EMAIL = 'grace.hopper@example.com';
const HOUR = 3_600_000;
/** The app reads the real clock, so the cycles run in the real last few days (each at its own `?now=`). */
const NOW = new Date(Math.floor(Date.now() / 60_000) * 60_000);
const CYCLES = [
  { at: new Date(NOW.getTime() - 50 * HOUR), prefix: 'monday', count: 10 },
  { at: new Date(NOW.getTime() - 26 * HOUR), prefix: 'tuesday', count: 10 },
  { at: new Date(NOW.getTime() - 2 * HOUR), prefix: 'today', count: 7 },
];
const RUST: TestItem = {
  guid: 'ferrous-rust',
  title: 'React and Rust platform engineer',
  link: 'https://jobs.example.com/jobs/ferrous-rust',
  description: '<p>Ferrous Systems builds a React front end on a Rust core.</p>',
  categories: ['react', 'rust'],
};

let browser: Browser;
let page: Page;
let server: NextProcess;
let feeds: FeedServer;
let appUrl: string;
const apiKey = `re_archive_${randomBytes(4).toString('hex')}`;
const projectId = `scout-archive-${randomBytes(4).toString('hex')}`;
const cspViolations: string[] = [];

const inbox = () => sinkInbox(apiKey, EMAIL);

beforeAll(async () => {
  feeds = await startFeedServer({ port: 0 });
  ({ server, appUrl } = await startBrowserApp({ apiKey, projectId, env: { FEED_URLS: `${feeds.url}/jobs.xml` } }));
  await addActiveSubscriber(createFirestore({ projectId }), { email: EMAIL, keywords: ['react'] }, new Date(NOW.getTime() - 60 * HOUR));
  for (const [i, cycle] of CYCLES.entries()) {
    const items = postingsAbout('react', cycle.count, { at: cycle.at, prefix: cycle.prefix });
    if (i === CYCLES.length - 1) items.push({ ...RUST, pubDate: new Date(cycle.at.getTime() - 60_000).toUTCString() });
    feeds.setFeed('/jobs.xml', { body: rssFeed(items), contentType: 'application/rss+xml' });
    const run = await fetch(`${appUrl}/api/cron?now=${cycle.at.toISOString()}`, {
      headers: { authorization: `Bearer ${BROWSER_CRON_SECRET}` },
    });
    expect(run.status).toBe(200);
  }
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  watchForCspViolations(page, cspViolations);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await feeds?.close();
});

describe('a subscriber opens their archive from an email', () => {
  it('every posting of three alerts, newest first, in pages of 20; a search finds one; nothing else runs on the page', async () => {
    const alerts = await inbox();
    expect(alerts).toHaveLength(3);
    const latest = alerts.find((m) => m.subject.startsWith('8 new: '))!;
    const archiveLink = /Your archive: (\S+)/.exec(latest.text ?? '')?.[1];
    expect(archiveLink).toMatch(new RegExp(`^${appUrl}/archive\\?token=`));

    // Opened from the HTML part, as a mail client would.
    await page.setContent(latest.html!);
    const href = await page.getByRole('link', { name: 'Your archive' }).getAttribute('href');
    expect(href).toBe(archiveLink);
    const response = await page.goto(href!);
    expect(response!.headers()['cache-control']).toBe('no-store');
    expect(response!.headers()['referrer-policy']).toBe('no-referrer');
    await page.getByRole('heading', { name: 'Your Scout archive' }).waitFor();

    const entries = page.locator('.archive-entry');
    expect(await entries.count()).toBe(20);
    const titles = await entries.locator('h2').allInnerTexts();
    // The newest alert first: today's 8 (Rust among them), then Tuesday's 10, then Monday's first 2.
    expect(titles.slice(0, 8).filter((t) => /\(today\)/.test(t) || /Rust/.test(t))).toHaveLength(8);
    expect(titles.slice(8, 18).every((t) => /\(tuesday\)/.test(t))).toBe(true);
    expect(titles.slice(18).every((t) => /\(monday\)/.test(t))).toBe(true);
    expect(await entries.first().locator('.archive-meta').innerText()).toMatch(/ UTC · instant alert$/);
    expect(await entries.first().locator('.archive-why').first().innerText()).toMatch(/^Why: /);
    await screenshot(page, '18-archive');

    await page.getByRole('link', { name: 'Older →' }).click();
    await page.getByRole('link', { name: '← Newest' }).waitFor();
    expect(await entries.count()).toBe(8);
    expect((await entries.locator('h2').allInnerTexts()).every((t) => /\(monday\)/.test(t))).toBe(true);
    expect(await page.getByRole('link', { name: 'Older →' }).count()).toBe(0);

    await page.getByLabel('Search titles, employers and reasons').fill('rust');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Postings that match “rust”.').waitFor();
    expect(await entries.locator('h2').allInnerTexts()).toEqual(['React and Rust platform engineer']);
    expect(await page.getByRole('link', { name: 'React and Rust platform engineer' }).getAttribute('href')).toBe(RUST.link);
    expect(new URL(page.url()).searchParams.get('q')).toBe('rust');

    await page.getByLabel('Search titles, employers and reasons').fill('cobol');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Nothing sent to you matches “cobol”.').waitFor();
    expect(await entries.count()).toBe(0);
    expect(cspViolations).toEqual([]);
  });

  it('the private feed on the preferences page is the same list as Atom, and a current reader gets 304', async () => {
    const [first] = await inbox();
    const preferences = /Change preferences: (\S+)/.exec(first.text ?? '')![1];
    await page.goto(preferences);
    const feedUrl = await page.getByLabel('Private feed (Atom)').inputValue();
    expect(feedUrl).toMatch(new RegExp(`^${appUrl}/feed\\?token=`));

    const response = await fetch(feedUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const feed = parseAtomFeed(await response.text());
    expect(feed.entries).toHaveLength(28);
    expect(feed.entries!.map((e) => e.title!.value)).toContain('React and Rust platform engineer');

    const again = await fetch(feedUrl, { headers: { 'if-none-match': response.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(await again.text()).toBe('');

    await page.getByRole('button', { name: 'Revoke and make a new feed URL' }).click();
    await page.getByText('Your old feed URLs no longer work').waitFor();
    const newFeedUrl = await page.getByLabel('Private feed (Atom)').inputValue();
    expect(newFeedUrl).not.toBe(feedUrl);
    expect((await fetch(feedUrl)).status).toBe(404);
    expect((await fetch(newFeedUrl)).status).toBe(200);
  });
});
