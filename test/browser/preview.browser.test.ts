import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Firestore } from 'firebase-admin/firestore';
import { postingHoursAgo } from '../support/postings';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { preferencesUrl } from '../../lib/subscribers/link-token';
import {
  BROWSER_LINK_SECRET,
  screenshot,
  screenshotOf,
  watchForCspViolations,
  startAppWithPostings,
  type AppWithPostings,
} from '../support/browser';

/**
 * The preview before saving, in Debian's Chromium against the real app (`next start`)
 * and the emulator: the landing page's preview following the typing (its React script), the
 * schedule fields following the cadence, the browser's time zone preselected; the Preview button
 * with JavaScript off; the preferences page's static script. The preview reads the real clock's
 * last 7 days, so the postings are stored relative to it. Screenshots: docs/screenshots/18-preview.png
 * and 18-preview-no-script.png (npm run docs:screenshots).
 */
let browser: Browser;
let app: AppWithPostings;
let appUrl: string;
let db: Firestore;
const apiKey = `re_browser_${randomBytes(4).toString('hex')}`;
const projectId = `scout-preview-${randomBytes(4).toString('hex')}`;
const contexts: BrowserContext[] = [];
/** Anything a page's policy blocked: every page's one script is the form script, from 'self'. */
const cspViolations: string[] = [];

const POSTINGS = [
  postingHoursAgo(1, 'React developer, product team', 2, { company: 'Acme', budget: { amount: 4000, currency: 'USD', kind: 'fixed' } }),
  postingHoursAgo(2, 'Senior React engineer', 5),
  postingHoursAgo(3, 'React on WordPress', 26),
  postingHoursAgo(4, 'Rust engineer', 30),
  postingHoursAgo(5, 'React <em>native</em> & web', 50),
  postingHoursAgo(6, 'React, last month', 24 * 9),
];

async function newPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, ...options });
  contexts.push(context);
  const page = await context.newPage();
  watchForCspViolations(page, cspViolations);
  return page;
}

const panel = (page: Page, id: string) => page.locator(`#${id}`);

beforeAll(async () => {
  app = await startAppWithPostings({ apiKey, projectId, postings: POSTINGS });
  ({ appUrl, db, browser } = app);
}, 300_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await app?.close();
});

describe('the preview on the landing page', () => {
  it('follows the typing (debounced, in place), with the browser’s time zone and the fields of the chosen cadence', async () => {
    const page = await newPage({ timezoneId: 'America/New_York' });
    await page.goto(appUrl);
    // The script preselected the browser's zone over the default.
    await expect.poll(() => page.inputValue('#signup-timezone')).toBe('America/New_York');

    // Instant (preselected) uses no schedule; each cadence shows its own fields.
    expect(await page.isChecked('#signup-mode-instant')).toBe(true);
    expect(await page.isVisible('#signup-digestHour')).toBe(false);
    await page.check('#signup-mode-daily');
    expect(await page.isVisible('#signup-digestHour')).toBe(true);
    expect(await page.isVisible('#signup-weekdays-mon')).toBe(true);
    expect(await page.isVisible('#signup-weeklyDay')).toBe(false);
    await page.check('#signup-mode-weekly');
    expect(await page.isVisible('#signup-weeklyDay')).toBe(true);
    expect(await page.isVisible('#signup-weekdays-mon')).toBe(false);

    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/preview')) requests.push(request.postData() ?? '');
    });
    await page.locator('#signup-keywords').pressSequentially('react', { delay: 30 });
    await expect.poll(() => panel(page, 'signup-preview').textContent()).toContain('4 postings of the last 7 days would have matched');
    // One request for the whole word: the debounce waited for the typing to stop.
    expect(requests).toHaveLength(1);
    expect(JSON.parse(requests[0])).toMatchObject({ keywords: 'react', mode: 'weekly', timezone: 'America/New_York' });
    expect(JSON.parse(requests[0])).not.toHaveProperty('email');
    await expect.poll(() => panel(page, 'signup-preview').textContent()).toContain('About 1 email a week: your weekly digest.');
    // Posting text is text: the markup in a title is shown, not run.
    expect(await panel(page, 'signup-preview').locator('li').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('React <em>native</em> & web')]),
    );
    expect(await panel(page, 'signup-preview').locator('em').count()).toBe(0);

    await page.fill('#signup-excludes', 'wordpress');
    await page.check('#signup-mode-instant');
    await expect.poll(() => panel(page, 'signup-preview').textContent()).toContain('3 postings of the last 7 days would have matched');
    await expect.poll(() => panel(page, 'signup-preview').textContent()).toContain('About 3 emails a week');
    const best = await panel(page, 'signup-preview').locator('li').first().textContent();
    expect(best).toContain('React developer, product team');
    expect(best).toContain('Acme · $4,000 fixed');
    expect(await panel(page, 'signup-preview').getAttribute('aria-live')).toBe('polite');

    // A daily digest at 09:00 New York time, Monday to Friday: the estimate follows the schedule.
    await page.check('#signup-mode-daily');
    await page.selectOption('#signup-digestHour', '9');
    await page.uncheck('#signup-weekdays-sat');
    await page.uncheck('#signup-weekdays-sun');
    await expect
      .poll(() => panel(page, 'signup-preview').textContent())
      .toMatch(/About \d emails? a week: one digest on each of your days/);
    await page.fill('#signup-email', 'grace@example.com');
    await screenshotOf(page.locator('#signup'), '18-preview');
    expect(new URL(page.url()).pathname).toBe('/');
    expect(cspViolations).toEqual([]);
    expect((await db.collection('users').get()).size).toBe(0);
  });

  it('with JavaScript off, the Preview button brings the same form back with everything as typed and the preview filled; Sign up still works from it', async () => {
    const page = await newPage({ javaScriptEnabled: false });
    await page.goto(appUrl);
    // No script: the zone stays the default, every schedule field is there to use.
    expect(await page.inputValue('#signup-timezone')).toBe('UTC');
    await page.fill('#signup-keywords', 'react, rust');
    await page.check('#signup-mode-daily');
    await page.selectOption('#signup-digestHour', '9');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.waitForLoadState('load');

    expect(new URL(page.url()).pathname).toBe('/api/preview');
    expect(await page.locator('h1').textContent()).toBe('What Scout would have sent you');
    expect(await page.inputValue('#signup-keywords')).toBe('react, rust');
    expect(await page.isChecked('#signup-mode-daily')).toBe(true);
    expect(await page.inputValue('#signup-digestHour')).toBe('9');
    const text = await panel(page, 'signup-preview').textContent();
    expect(text).toContain('5 postings of the last 7 days would have matched');
    expect(text).toMatch(/About \d emails? a week: one digest on each of your days with matches\./);
    await screenshot(page, '18-preview-no-script');

    await page.fill('#signup-email', 'grace@example.com');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Check your inbox').first().waitFor();
    const user = (await db.collection('users').get()).docs[0]?.data();
    expect(user).toMatchObject({ email: 'grace@example.com', keywords: ['react', 'rust'], mode: 'daily', digestHour: 9, timezone: 'UTC' });
  });
});

describe('the preview on the preferences page', () => {
  it('its one static script previews as the subscriber types, under the page’s own policy', async () => {
    const subscriber = await addActiveSubscriber(db, { email: 'lin@example.com', keywords: ['golang'], mode: 'daily' }, new Date());
    const link = preferencesUrl({ appUrl, uid: subscriber.id, secret: BROWSER_LINK_SECRET, issuedAt: new Date() });
    const page = await newPage({ timezoneId: 'Europe/Berlin' });
    await page.goto(link);
    await expect.poll(() => page.inputValue('#timezone')).toBe('Europe/Berlin');
    expect(await page.locator('#timezone-hint').textContent()).toContain('Set to your browser’s time zone');
    await page.fill('#keywords', 'rust');
    await expect.poll(() => panel(page, 'preview').textContent()).toContain('1 posting of the last 7 days would have matched');
    expect(await panel(page, 'preview').textContent()).toContain('Rust engineer');
    // Nothing saved by a preview.
    expect((await db.collection('users').doc(subscriber.id).get()).get('keywords')).toEqual(['golang']);
    expect(cspViolations).toEqual([]);
  });
});
