import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Firestore } from 'firebase-admin/firestore';
import { postingHoursAgo } from '../support/postings';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { preferencesUrl } from '../../lib/subscribers/link-token';
import { BROWSER_LINK_SECRET, screenshotOf, watchForCspViolations, startAppWithPostings, type AppWithPostings } from '../support/browser';

/**
 * "Advanced: write a query" in Debian's Chromium against the real app (`next start`) and the
 * emulator: a query written on the landing page previewed as it is typed with the matched words
 * marked, a query that does not parse told in place with the character marked, the simple form
 * rewriting the query as the keywords are typed, and the preferences page showing and saving a
 * stored query. Screenshots: docs/screenshots/23-advanced-query.png and 24-query-error.png
 * (npm run docs:screenshots).
 */
let browser: Browser;
let app: AppWithPostings;
let appUrl: string;
let db: Firestore;
const apiKey = `re_browser_${randomBytes(4).toString('hex')}`;
const projectId = `scout-query-${randomBytes(4).toString('hex')}`;
const contexts: BrowserContext[] = [];
const cspViolations: string[] = [];

const POSTINGS = [
  postingHoursAgo(1, 'Senior React engineer', 2, {
    remote: true,
    company: 'Acme',
    description: 'Build our React front end with TypeScript. Remote across Europe.',
  }),
  postingHoursAgo(2, 'Vue developer', 5, { location: 'Remote (EU)', description: 'Vue 3 and Nuxt for a small product team.' }),
  postingHoursAgo(3, 'React on WordPress', 8, { remote: true }),
  postingHoursAgo(4, 'React developer, Berlin office', 12, { remote: false }),
  postingHoursAgo(5, 'Rust engineer', 20, { remote: true, description: 'Rust services, some Go.' }),
  postingHoursAgo(6, 'Backend engineer', 30, { remote: true, description: 'Node services behind a react app.' }),
];

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 1000 } });
  contexts.push(context);
  const page = await context.newPage();
  watchForCspViolations(page, cspViolations);
  return page;
}

beforeAll(async () => {
  app = await startAppWithPostings({ apiKey, projectId, postings: POSTINGS });
  ({ appUrl, db, browser } = app);
}, 300_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await app?.close();
});

describe('a query written on the landing page', () => {
  it('is previewed as it is typed, the matched words marked; one that does not parse is told in place, the character marked', async () => {
    const page = await newPage();
    await page.goto(appUrl);
    const preview = page.locator('#signup-preview');
    const details = page.locator('details.query-field');
    // Closed until asked for: the simple form is the way in.
    expect(await details.getAttribute('open')).toBeNull();
    expect(await page.isVisible('#signup-query')).toBe(false);
    await page.getByText('Advanced: write a query').click();
    expect(await page.isVisible('#signup-query')).toBe(true);

    const requests: Record<string, unknown>[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/preview')) requests.push(JSON.parse(request.postData() ?? '{}'));
    });
    await page.fill('#signup-email', 'ada@example.com');
    await page.locator('#signup-query').pressSequentially('title:(react OR vue) remote:yes -wordpress', { delay: 10 });
    await expect.poll(() => preview.textContent()).toContain('2 postings of the last 7 days would have matched');
    expect(requests.at(-1)).toMatchObject({ query: 'title:(react OR vue) remote:yes -wordpress', keywords: '' });
    const titles = await preview.locator('li a').allTextContents();
    expect(titles.sort()).toEqual(['Senior React engineer', 'Vue developer']);
    // The words that matched, marked where they stand; the reasons name the clauses.
    expect((await preview.locator('li a mark').allTextContents()).sort()).toEqual(['React', 'Vue']);
    expect(await preview.textContent()).toContain('matched title:react');
    expect(await preview.textContent()).not.toContain('WordPress');
    await screenshotOf(page.locator('#signup'), '23-advanced-query');

    await page.fill('#signup-query', '');
    await page.locator('#signup-query').pressSequentially('react (vue OR angular', { delay: 10 });
    const error = page.locator('#signup-query-error');
    await expect.poll(() => error.textContent().catch(() => null)).toContain('`(` at 6 is never closed');
    expect(await page.locator('#signup-query-at mark').textContent()).toBe('(');
    expect(await page.locator('#signup-query-at code').textContent()).toBe('react (vue OR angular');
    expect(await page.getAttribute('#signup-query', 'aria-invalid')).toBe('true');
    expect((await page.getAttribute('#signup-query', 'aria-describedby'))?.split(' ')).toEqual([
      'signup-query-hint',
      'signup-query-error',
      'signup-query-at',
    ]);
    await screenshotOf(page.locator('#signup'), '24-query-error');

    // Fixed: the error goes, the preview comes back.
    await page.locator('#signup-query').press('End');
    await page.locator('#signup-query').pressSequentially(')', { delay: 10 });
    await expect.poll(() => page.locator('#signup-query-error').count()).toBe(0);
    expect(await page.locator('#signup-query-at').count()).toBe(0);
    expect(await page.getAttribute('#signup-query', 'aria-invalid')).toBeNull();
    await expect.poll(() => preview.textContent()).toContain('would have matched');
    expect(cspViolations).toEqual([]);
  });

  it('the simple form still works: typing keywords and excludes writes their query, and signing up stores it', async () => {
    const page = await newPage();
    await page.goto(appUrl);
    await page.fill('#signup-email', 'grace@example.com');
    await page.fill('#signup-keywords', 'Rust, react native');
    expect(await page.inputValue('#signup-query')).toBe('rust OR "react native"');
    await page.fill('#signup-excludes', 'php');
    expect(await page.inputValue('#signup-query')).toBe('rust OR "react native" -php');
    await expect.poll(() => page.locator('#signup-preview').textContent()).toContain('1 posting of the last 7 days would have matched');
    expect(await page.locator('#signup-preview li a mark').allTextContents()).toEqual(['Rust']);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Check your inbox').first().waitFor();
    const user = (await db.collection('users').where('email', '==', 'grace@example.com').get()).docs[0]?.data();
    expect(user).toMatchObject({ keywords: ['rust', 'react native'], excludes: ['php'], query: 'rust OR "react native" -php' });
  });
});

describe('a query on the preferences page', () => {
  it('shows the stored query open, with the note beside the lists; a changed query is saved; editing the keywords replaces it', async () => {
    const subscriber = await addActiveSubscriber(
      db,
      { email: 'lin@example.com', keywords: ['react'], query: 'title:(react OR vue) remote:yes', mode: 'daily' },
      new Date(),
    );
    const link = preferencesUrl({ appUrl, uid: subscriber.id, secret: BROWSER_LINK_SECRET, issuedAt: new Date() });
    const page = await newPage();
    await page.goto(link);
    expect(await page.locator('details.query-field').getAttribute('open')).not.toBeNull();
    expect(await page.inputValue('#query')).toBe('title:(react OR vue) remote:yes');
    expect(await page.inputValue('#keywords')).toBe('react, vue');
    expect(await page.locator('#query-note').textContent()).toContain('says more than keywords and excludes can');

    await page.fill('#query', 'title:(react OR vue) remote:yes -wordpress');
    await expect.poll(() => page.locator('#preview').textContent()).toContain('2 postings of the last 7 days would have matched');
    await page.getByRole('button', { name: 'Save preferences' }).click();
    await page.getByText('Saved').first().waitFor();
    const saved = (await db.collection('users').doc(subscriber.id).get()).data();
    expect(saved).toMatchObject({ query: 'title:(react OR vue) remote:yes -wordpress', keywords: ['react', 'vue'] });

    // The simple form again (its excludes are the query's top-level exclusions): the lists say it all, and the note goes.
    expect(await page.inputValue('#excludes')).toBe('wordpress');
    await page.fill('#keywords', 'rust');
    expect(await page.inputValue('#query')).toBe('rust -wordpress');
    expect(await page.locator('#query-note').count()).toBe(0);
    await page.getByRole('button', { name: 'Save preferences' }).click();
    await page.getByText('Saved').first().waitFor();
    expect((await db.collection('users').doc(subscriber.id).get()).data()).toMatchObject({
      query: 'rust -wordpress',
      keywords: ['rust'],
      excludes: ['wordpress'],
    });
    expect(cspViolations).toEqual([]);
  });
});
