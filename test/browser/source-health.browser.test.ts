import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFirestore } from '../../lib/store/firestore';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { BROWSER_ADMIN_SECRET, launchChromium, screenshotOf, startBrowserApp } from '../support/browser';
import type { NextProcess } from '../support/next-process';
import { recordSourcesInFourStates } from '../support/sources-in-four-states';

/**
 * The ops page's Sources panel in Chromium against the real app: four sources whose recorded
 * histories put them in the four health states (ok, failing, disabled, silent), each with its
 * numbers, and under the three that need the operator the line saying what to do. The panel is
 * saved to docs/screenshots/17-source-health.png.
 */
let browser: Browser;
let page: Page;
let server: NextProcess;
let feeds: FeedServer;
let appUrl: string;
const projectId = `scout-health-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  feeds = await startFeedServer({ port: 0 });
  // The one configured source is one of the four recorded: no run is made, so none shows as never fetched.
  ({ server, appUrl } = await startBrowserApp({
    apiKey: `re_health_${randomBytes(4).toString('hex')}`,
    projectId,
    env: { FEED_URLS: `remote-jobs=${feeds.url}/sample.xml` },
  }));
  // The page reads the real clock: the histories end now.
  await recordSourcesInFourStates(createFirestore({ projectId }), new Date());
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await feeds?.close();
});

describe('the operator reads source health on the ops page', () => {
  it('sees an ok, a failing, a disabled and a silent source, the ones to act on first, each with what to do', async () => {
    await page.goto(`${appUrl}/admin`);
    await page.fill('[name=secret]', BROWSER_ADMIN_SECRET);
    await page.click('button[type=submit]');
    await page.getByRole('heading', { name: 'Scout ops' }).waitFor();

    const panel = page.locator('section[aria-labelledby=sources-title]');
    await panel.scrollIntoViewIfNeeded();
    expect(await panel.locator('.pill').allInnerTexts()).toEqual(['disabled', 'failing', 'silent', 'ok']);
    const todo = await panel.locator('tr.todo').allInnerTexts();
    expect(todo).toHaveLength(3);
    expect(todo[0]).toMatch(/^disabled: the board answered 404 3 times in a row since .*; the daily probe re-enables it \(next /);
    expect(todo[1]).toMatch(/^failing: 2 failures in a row since /);
    expect(todo[2]).toBe('silent: no new posting for 9 days (usual gap 1 day); check the board still lists jobs');
    await screenshotOf(panel, '17-source-health');
  });
});
