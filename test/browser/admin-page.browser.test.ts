import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { createFirestore } from '../../lib/store/firestore';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { BROWSER_ADMIN_SECRET, BROWSER_CRON_SECRET, launchChromium, screenshot, startBrowserApp } from '../support/browser';
import type { NextProcess } from '../support/next-process';
import { postingsAbout, rssFeed, type TestItem } from '../../scripts/sample-feed/rss-feed';

/**
 * The operator's ops page in Debian's Chromium against the real app (`next start`), the emulator
 * and the mail sink: log in through the form, read the dashboard after a morning of real runs (a
 * dead email, a broken feed among them), look a subscriber up, retry the dead email, log out.
 * The dashboard and the lookup are saved to docs/screenshots/ (12-admin, 13-admin-subscriber).
 *
 * The page reads the real clock, so the runs are placed in the three hours before now (?now= moves
 * only the cycle's clock), and the digest hour is set inside that span, so the morning's runs queue
 * a digest and a later one sends it.
 */
const ADA = 'ada.lovelace@example.com';

let browser: Browser;
let page: Page;
let server: NextProcess;
let feeds: FeedServer;
let appUrl: string;
const apiKey = `re_admin_${randomBytes(4).toString('hex')}`;
const projectId = `scout-admin-${randomBytes(4).toString('hex')}`;
const db = () => createFirestore({ projectId });

const shoot = (name: string) => screenshot(page, name);

async function setSinkFaults(faults: Record<string, unknown>) {
  const res = await fetch(`${inject('mailSinkUrl')}/sink/faults`, {
    method: 'POST',
    body: JSON.stringify({ apiKey, ...faults }),
    headers: { 'content-type': 'application/json' },
  });
  if (!res.ok) throw new Error(`sink faults: ${res.status}`);
}

/** A morning of runs, every 20 minutes up to a few minutes ago, each with its own new postings. */
async function runMorning() {
  const start = Date.now() - 3 * 3_600_000;
  const batches: [string, TestItem[]][] = [
    ['svelte', postingsAbout('svelte', 2, { at: new Date(start), prefix: 's1' })],
    ['react', postingsAbout('react', 3, { at: new Date(start + 20 * 60_000), prefix: 'r1' })],
    ['rust', postingsAbout('rust', 1, { at: new Date(start + 40 * 60_000), prefix: 'u1' })],
    [
      'react',
      [
        ...postingsAbout('react', 2, { at: new Date(start + 60 * 60_000), prefix: 'r2' }),
        ...postingsAbout('node', 2, { at: new Date(start + 60 * 60_000), prefix: 'n1' }),
      ],
    ],
    ['none', []],
    ['svelte', postingsAbout('svelte', 1, { at: new Date(start + 100 * 60_000), prefix: 's2' })],
    ['rust', postingsAbout('rust', 3, { at: new Date(start + 120 * 60_000), prefix: 'u2' })],
    ['react', postingsAbout('react', 4, { at: new Date(start + 140 * 60_000), prefix: 'r3' })],
    ['none', []],
  ];
  for (const [i, [topic, items]] of batches.entries()) {
    feeds.setFeed('/jobs.xml', { body: rssFeed(items), contentType: 'application/rss+xml' });
    // The first run's only email (Ada's svelte alert) is refused for good: a dead email to retry.
    if (i === 0) await setSinkFaults({ failNext: { count: 1, status: 422, name: 'validation_error' } });
    const at = new Date(start + i * 20 * 60_000).toISOString();
    const res = await fetch(`${appUrl}/api/cron?now=${at}`, { headers: { authorization: `Bearer ${BROWSER_CRON_SECRET}` } });
    const body = await res.text();
    expect(res.status, `${topic} run at ${at}: ${body}`).toBe(200);
  }
}

beforeAll(async () => {
  feeds = await startFeedServer({ port: 0 });
  feeds.setFeed('/jobs.xml', { body: rssFeed([]), contentType: 'application/rss+xml' });
  // A board that is down all morning: every run records its failure on feeds/broken-board.
  feeds.setFeed('/broken.xml', { status: 503, body: 'Service Unavailable', contentType: 'text/plain' });
  ({ server, appUrl } = await startBrowserApp({
    apiKey,
    projectId,
    env: {
      FEED_URLS: `jobs-board=${feeds.url}/jobs.xml, broken-board=${feeds.url}/broken.xml`,
      DIGEST_HOUR_UTC: String(new Date(Date.now() - 90 * 60_000).getUTCHours()),
    },
  }));
  const joined = new Date(Date.now() - 4 * 3_600_000);
  await addActiveSubscriber(db(), { email: ADA, keywords: ['svelte', 'typescript'] }, joined);
  await addActiveSubscriber(db(), { email: 'bea@example.com', keywords: ['react'], mode: 'daily' }, joined);
  await addActiveSubscriber(db(), { email: 'cid@example.com', keywords: ['react', 'node'] }, joined);
  await addActiveSubscriber(db(), { email: 'dan@example.com', keywords: ['rust'] }, joined);
  await runMorning();

  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await feeds?.close();
});

describe('the operator logs in, reads the ops page, looks a subscriber up and retries a dead email', () => {
  it('without a session /admin is only the login form; a wrong secret is refused', async () => {
    await page.goto(`${appUrl}/admin`);
    expect(await page.locator('input[type=password]').count()).toBe(1);
    expect(await page.content()).not.toContain('Runs over time');
    await page.fill('[name=secret]', 'not-the-secret-at-all');
    await page.click('button[type=submit]');
    await page.getByText('That is not the admin secret.').waitFor();
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('scout_admin');
  });

  it('logs in through the form and sees runs, charts, the broken feed and the dead email', async () => {
    await page.fill('[name=secret]', BROWSER_ADMIN_SECRET);
    await page.click('button[type=submit]');
    await page.getByRole('heading', { name: 'Scout ops' }).waitFor();
    const cookie = (await page.context().cookies()).find((c) => c.name === 'scout_admin');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });

    expect(await page.locator('svg.chart').count()).toBe(3);
    expect(await page.locator('#runs-title ~ .scroll tbody tr').count()).toBe(9);
    expect(await page.locator('text=broken-board').count()).toBeGreaterThan(0);
    expect(await page.locator('text=503').count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(1);
    await shoot('12-admin');
  });

  it('looks a subscriber up by email: their deliveries and emails, with actions', async () => {
    await page.fill('[name=email]', ADA);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('heading', { name: ADA }).waitFor();
    expect(page.url()).toBe(`${appUrl}/admin`); // the address went in the body, not the URL
    expect(await page.locator('#deliveries-title ~ .scroll tbody tr').count()).toBe(3);
    expect(await page.getByRole('button', { name: 'Pause subscriber' }).count()).toBe(1);
    await shoot('13-admin-subscriber');
  });

  it('retries the dead email from the subscriber page and comes back to it with a message', async () => {
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText(/^Retried alert_/).waitFor();
    await page.getByRole('heading', { name: ADA }).waitFor();
    const dead = await db().collection('emails').where('status', '==', 'dead').get();
    expect(dead.size).toBe(0);
    const pending = await db().collection('emails').where('status', '==', 'pending').get();
    expect(pending.docs.map((d) => d.get('retries'))).toEqual([1]);
  });

  it('logs out: /admin is the login form again', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.locator('input[type=password]').waitFor();
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('scout_admin');
  });
});
