import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SinkMessage } from '../../scripts/mail-sink/types';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { createFirestore } from '../../lib/store/firestore';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { BROWSER_CRON_SECRET, launchChromium, screenshot, sinkInbox, startBrowserApp, watchForCspViolations } from '../support/browser';
import type { NextProcess } from '../support/next-process';
import { postingsAbout, rssFeed } from '../../scripts/sample-feed/rss-feed';

/**
 * A person's whole way through Scout, in Debian's Chromium driven by playwright-core, against the
 * real app (`next start`), the emulator and the mail sink: the landing page and its validation,
 * signup, the confirmation email, the confirm page, preferences, a first alert, "not a fit" on
 * one of its postings, one-click unsubscribe. Each page is saved to docs/screenshots/ for the README.
 */
const EMAIL = 'ada.lovelace@example.com';
const NOW = '2026-11-30T06:00:00Z';

let browser: Browser;
let page: Page;
let server: NextProcess;
let feeds: FeedServer;
let appUrl: string;
const apiKey = `re_browser_${randomBytes(4).toString('hex')}`;
const projectId = `scout-browser-${randomBytes(4).toString('hex')}`;

const inbox = () => sinkInbox(apiKey, EMAIL);
const linkIn = (message: SinkMessage, path: string) => {
  const match = new RegExp(`${appUrl}${path}\\?token=[A-Za-z0-9_.-]+`).exec(message.text ?? '');
  if (!match) throw new Error(`no ${path} link in "${message.subject}"`);
  return match[0];
};
const shoot = (name: string) => screenshot(page, name);
/** Anything the page's policy blocked: the app's own scripts must all carry the response's nonce. */
const cspViolations: string[] = [];

beforeAll(async () => {
  feeds = await startFeedServer({ port: 0 });
  feeds.setFeed('/jobs.xml', { body: rssFeed(postingsAbout('svelte', 2, { at: new Date(NOW) })), contentType: 'application/rss+xml' });
  ({ server, appUrl } = await startBrowserApp({ apiKey, projectId, env: { FEED_URLS: `${feeds.url}/jobs.xml` } }));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  watchForCspViolations(page, cspViolations);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await feeds?.close();
});

describe('a subscriber from the landing page to a confirmed subscription, a first alert and out again', () => {
  it('bad input on the signup form is shown next to its field and nothing is created', async () => {
    await page.goto(appUrl);
    await shoot('01-landing');
    // The API requires a mode; the landing form chooses instant for people who do not.
    expect(await page.isChecked('[name=mode][value=instant]')).toBe(true);
    // Passes the browser's own checks, fails the server's: the error must come back next to its field.
    await page.fill('[name=email]', 'ada@example.com');
    await page.fill('[name=keywords]', `react, ${'x'.repeat(70)}`);
    await page.click('button[type=submit]');
    await page.waitForSelector('[aria-invalid=true]');
    expect(await page.getAttribute('[name=keywords]', 'aria-invalid')).toBe('true');
    expect(await page.inputValue('[name=email]')).toBe('ada@example.com');
    expect(await page.locator('.field-error').first().textContent()).toBeTruthy();
    await shoot('02-signup-errors');
    // The errors came from the form script (no page load), which ran under the pages' one policy.
    expect(new URL(page.url()).pathname).toBe('/');
    expect(cspViolations).toEqual([]);
    const db = createFirestore({ projectId });
    expect((await db.collection('users').get()).size).toBe(0);
  });

  it('signs up, confirms from the email (the link page changes nothing until the button), changes preferences, gets an alert, unsubscribes in one click', async () => {
    const db = createFirestore({ projectId });
    const user = db.collection('users').doc(subscriberId(EMAIL));

    await page.goto(appUrl);
    await page.fill('[name=email]', `  ${EMAIL.toUpperCase()} `);
    await page.fill('[name=keywords]', 'react, typescript');
    // Without the AI stage nothing reads "About you", so the form does not ask for it.
    expect(await page.locator('[name=about]').count()).toBe(0);
    // Mode left as the form preselects it: a signup that never touches it still carries one.
    await page.click('button[type=submit]');
    await page.getByText('Check your inbox').waitFor();
    // The answer names the address it went to (as typed, trimmed), with a way to change it and to ask again.
    expect(await page.locator('.signup-address').textContent()).toBe(EMAIL.toUpperCase());
    expect(await page.getByRole('button', { name: 'Change it' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Send it again' }).isDisabled()).toBe(true);
    await shoot('03-signup-done');
    expect((await user.get()).get('status')).toBe('pending');
    expect((await user.get()).data()).toMatchObject({ about: '', profileVersion: 1 });

    const [confirmation] = await inbox();
    expect(confirmation.subject).toMatch(/confirm/i);
    await page.goto(linkIn(confirmation, '/confirm'));
    await shoot('04-confirm');
    expect((await user.get()).get('status')).toBe('pending');
    await page.getByRole('button', { name: /confirm/i }).click();
    await page.waitForLoadState('load');
    await shoot('05-confirmed');
    expect((await user.get()).get('status')).toBe('active');

    // The preferences link is in every email; the confirmation page shows it too.
    const preferences = await page.locator('a[href*="/preferences?token="]').first().getAttribute('href');
    await page.goto(new URL(preferences!, appUrl).toString());
    await shoot('06-preferences');
    // Neither "About you" nor the fit threshold without the AI stage: fields that would do nothing.
    expect(await page.locator('[name=about], [name=fitThreshold]').count()).toBe(0);
    await page.fill('[name=keywords]', 'Svelte, TypeScript');
    await page.getByRole('button', { name: /save/i }).click();
    await page.getByText(/saved/i).first().waitFor();
    await shoot('07-preferences-saved');
    expect((await user.get()).data()).toMatchObject({
      keywords: ['svelte', 'typescript'],
      about: '',
      profileVersion: 2,
    });

    const run = await fetch(`${appUrl}/api/cron?now=${NOW}`, { headers: { authorization: `Bearer ${BROWSER_CRON_SECRET}` } });
    expect(run.status).toBe(200);
    const alert = (await inbox()).find((m) => /^[12] new: /.test(m.subject));
    expect(alert).toBeDefined();
    await page.setContent(alert!.html!);
    await shoot('08-alert-email');

    // "Not a fit" on the first posting of the alert, from the link the email carries: the page asks, and only its button records.
    const deliveries = (await db.collection('deliveries').where('uid', '==', user.id).get()).docs;
    await page.goto(linkIn(alert!, '/not-a-fit'));
    await page.getByRole('button', { name: 'Not a fit' }).waitFor();
    await shoot('14-not-a-fit');
    expect((await db.collection('feedback').get()).size).toBe(0);
    await page.getByRole('button', { name: 'Not a fit' }).click();
    await page.getByText(/Noted/).first().waitFor();
    const feedback = (await db.collection('feedback').get()).docs.map((d) => d.id);
    expect(feedback).toHaveLength(1);
    expect(deliveries.map((d) => `${user.id}_${d.get('jobId')}`)).toContain(feedback[0]);
    expect(cspViolations).toEqual([]);

    await page.goto(linkIn(alert!, '/unsubscribe'));
    await shoot('09-unsubscribe');
    expect((await user.get()).get('status')).toBe('active');
    await page.getByRole('button', { name: /unsubscribe/i }).click();
    await page.waitForLoadState('load');
    await shoot('10-unsubscribed');
    expect((await user.get()).get('status')).toBe('unsubscribed');
  });

  it('a tampered link shows a clear page and changes nothing', async () => {
    await page.goto(`${appUrl}/preferences?token=tampered.token`);
    await shoot('11-bad-link');
    expect(await page.locator('h1').textContent()).toBeTruthy();
    const response = await fetch(`${appUrl}/confirm?token=tampered.token`, { method: 'POST' });
    expect(response.status).toBe(400);
  });
});
