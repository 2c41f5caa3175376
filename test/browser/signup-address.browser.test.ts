import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Firestore } from 'firebase-admin/firestore';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { rssFeed } from '../../scripts/sample-feed/rss-feed';
import { createFirestore } from '../../lib/store/firestore';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { RESEND_AFTER_SEC } from '../../lib/subscriptions/signup-received';
import { launchChromium, screenshot, sinkInbox, startBrowserApp, watchForCspViolations } from '../support/browser';
import type { NextProcess } from '../support/next-process';

/**
 * The landing page's signup catching a mistyped address, in Debian's Chromium against the real app
 * (`next start`), the emulator and the mail sink: the suggestion as the email field is left and its
 * one-click fix, "keep it" sent as confirmed, the server's question when a typo is submitted
 * anyway, and the answer naming the address with "Change it" and the resend countdown.
 */
let browser: Browser;
let page: Page;
let server: NextProcess;
let feeds: FeedServer;
let appUrl: string;
let db: Firestore;
const apiKey = `re_browser_${randomBytes(4).toString('hex')}`;
const projectId = `scout-address-${randomBytes(4).toString('hex')}`;
const cspViolations: string[] = [];

const inbox = (to: string) => sinkInbox(apiKey, to);
const email = () => page.locator('input[name=email]');
const suggestion = () => page.locator('.email-suggestion');

beforeAll(async () => {
  feeds = await startFeedServer({ port: 0 });
  feeds.setFeed('/jobs.xml', { body: rssFeed([]), contentType: 'application/rss+xml' });
  ({ server, appUrl } = await startBrowserApp({ apiKey, projectId, env: { FEED_URLS: `${feeds.url}/jobs.xml` } }));
  db = createFirestore({ projectId });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  watchForCspViolations(page, cspViolations);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await feeds?.close();
});

describe('the landing page catches a mistyped address', () => {
  it('suggests a correction when the email field is left, and one click fixes it', async () => {
    await page.goto(appUrl);
    await email().fill('new.person@gmial.con');
    expect(await suggestion().count()).toBe(0);
    await page.fill('[name=keywords]', 'react');
    await suggestion().waitFor();
    expect(await suggestion().textContent()).toContain('Did you mean new.person@gmail.com?');
    await screenshot(page, '20-signup-typo-suggestion');
    await page.getByRole('button', { name: 'Use new.person@gmail.com' }).click();
    expect(await email().inputValue()).toBe('new.person@gmail.com');
    expect(await suggestion().count()).toBe(0);
    // A correct rare domain gets no suggestion.
    await email().fill('ada@fastmail.fm');
    await page.locator('[name=keywords]').focus();
    await page.waitForTimeout(200);
    expect(await suggestion().count()).toBe(0);
  });

  it('"Keep …" signs up the address as typed, without the server asking again', async () => {
    await page.goto(appUrl);
    await email().fill('ada@yaho.com');
    await page.locator('[name=keywords]').focus();
    await page.getByRole('button', { name: 'Keep ada@yaho.com' }).click();
    await page.fill('[name=keywords]', 'react');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Check your inbox').waitFor();
    expect(await page.locator('.signup-address').textContent()).toBe('ada@yaho.com');
    expect((await db.collection('users').doc(subscriberId('ada@yaho.com')).get()).get('status')).toBe('pending');
  });

  it('a typo submitted anyway is asked about by the server; "Use …" signs up the suggestion; the answer names it, "Change it" brings the form back', async () => {
    await page.goto(appUrl);
    await page.fill('[name=keywords]', 'svelte, go');
    await email().fill('bo@outlok.com');
    // Enter in the field submits without leaving it: the server is the one that asks.
    await email().press('Enter');
    await page.getByRole('button', { name: 'Use bo@outlok.com anyway' }).waitFor();
    expect(await page.locator('[role=alert].email-suggestion').textContent()).toContain('Scout has not signed you up yet');
    expect(await db.collection('users').doc(subscriberId('bo@outlok.com')).get()).toHaveProperty('exists', false);
    await page.getByRole('button', { name: 'Use bo@outlook.com' }).click();
    await page.getByText('Check your inbox').waitFor();
    expect(await page.locator('.signup-address').textContent()).toBe('bo@outlook.com');
    expect(await inbox('bo@outlook.com')).toHaveLength(1);

    // The resend waits out the mailbox's window, counting down.
    const resend = page.getByRole('button', { name: 'Send it again' });
    expect(await resend.isDisabled()).toBe(true);
    expect(await page.locator('#signup-resend-hint').textContent()).toMatch(/You can ask again in (9|10):\d\d\./);
    expect(RESEND_AFTER_SEC).toBe(600);
    await screenshot(page, '21-signup-done-address');

    await page.getByRole('button', { name: 'Change it' }).click();
    await email().waitFor();
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe('email');
    expect(await email().inputValue()).toBe('bo@outlook.com');
    expect(await page.inputValue('[name=keywords]')).toBe('svelte, go');
    expect(cspViolations).toEqual([]);
  });

  it('a signup refused as a whole (too large) says why at the top of the form, in place, with everything still as typed', async () => {
    await page.goto(appUrl);
    await email().fill('too.much@example.com');
    const keywords = Array.from({ length: 1_500 }, (_, i) => `keyword${i}`).join(', ');
    await page.locator('[name=keywords]').fill(keywords);
    await page.getByRole('button', { name: 'Sign up' }).click();
    // The server's own words for a 413, from the page it renders for a form post.
    await page.locator('.signup-form [role=alert].form-error').waitFor();
    expect(await page.locator('.signup-form [role=alert].form-error').textContent()).toContain('A signup is at most 16 KB');
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await email().inputValue()).toBe('too.much@example.com');
    expect(await page.inputValue('[name=keywords]')).toBe(keywords);
    expect(await db.collection('users').doc(subscriberId('too.much@example.com')).get()).toHaveProperty('exists', false);
    expect(cspViolations).toEqual([]);
  });
});
