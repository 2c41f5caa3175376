import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFirestore } from '../../lib/store/firestore';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { preferencesUrl } from '../../lib/subscribers/link-token';
import { DEFAULT_TELEGRAM_BOT, startChannelStandIn, type ChannelStandIn } from '../../scripts/channel-stand-in/server';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { BROWSER_LINK_SECRET, launchChromium, screenshotOf, startBrowserApp, watchForCspViolations } from '../support/browser';
import type { NextProcess } from '../support/next-process';

/**
 * The preferences page's channels in Chromium against the real app (`next start`), its channels on
 * the local stand-in for Slack and Telegram's Bot API: a subscriber adds Slack, types back the code
 * the stand-in received, and connects Telegram, which waits for Start in the chat. The channel
 * section (one Active, one Verifying, and the add form) is saved to
 * docs/screenshots/22-preferences-channels.png (npm run docs:screenshots).
 */
let browser: Browser;
let page: Page;
let server: NextProcess;
let feeds: FeedServer;
let standIn: ChannelStandIn;
let appUrl: string;
const projectId = `scout-channels-${randomBytes(4).toString('hex')}`;
const cspViolations: string[] = [];

beforeAll(async () => {
  feeds = await startFeedServer({ port: 0 });
  standIn = await startChannelStandIn({ port: 0 });
  ({ server, appUrl } = await startBrowserApp({
    apiKey: `re_channels_${randomBytes(4).toString('hex')}`,
    projectId,
    env: {
      FEED_URLS: `sample=${feeds.url}/sample.xml`,
      // The stand-in is on loopback, and it is the Bot API.
      CHANNEL_ALLOW_LOOPBACK: 'true',
      TELEGRAM_BOT_TOKEN: DEFAULT_TELEGRAM_BOT.token,
      TELEGRAM_BOT_USERNAME: DEFAULT_TELEGRAM_BOT.username,
      TELEGRAM_API_BASE_URL: standIn.url,
    },
  }));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  watchForCspViolations(page, cspViolations);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await standIn?.close();
  await feeds?.close();
});

/** The code Scout posted to one Slack webhook: the last 6 digits the stand-in received there. */
const slackCode = (path: string) =>
  standIn
    .received({ platform: 'slack', destination: path })
    .map((r) => /\b(\d{3}) ?(\d{3})\b/.exec(r.rawBody))
    .filter(Boolean)
    .map((m) => `${m![1]}${m![2]}`)
    .at(-1);

describe('a subscriber sees their channels on the preferences page', () => {
  it('adds Slack (verified with the posted code) and Telegram (waiting for Start), and the add form stays for more', async () => {
    const db = createFirestore({ projectId });
    const subscriber = await addActiveSubscriber(db, { email: 'ines@example.com', keywords: ['react'], mode: 'daily' }, new Date());
    await page.goto(preferencesUrl({ appUrl, uid: subscriber.id, secret: BROWSER_LINK_SECRET, issuedAt: new Date() }));
    await expect(page.locator('#channels-title').textContent()).resolves.toBe('Also send to…');

    const slackPath = 'T0SCOUT01/B0SCOUT01/docsScreenshotSecret';
    await page.selectOption('#channel-kind', 'slack');
    await page.fill('#channel-url', standIn.slackUrl(slackPath));
    await page.click('button:has-text("Add channel")');
    await page.waitForSelector('text=Scout sent a 6-digit code to Slack');
    const code = slackCode(slackPath);
    expect(code).toMatch(/^\d{6}$/);
    await page.fill('input[name="code"]', code!);
    await page.click('button:has-text("Verify")');
    await page.waitForSelector('text=Verified: this channel gets your postings');

    await page.click('button:has-text("Connect Telegram")');
    await page.waitForSelector('text=Open the link below on a device with Telegram and press Start');
    const startLink = await page.locator('.channel-start code').textContent();
    expect(startLink).toMatch(new RegExp(`^https://t\\.me/${DEFAULT_TELEGRAM_BOT.username}\\?start=[\\w-]+$`));

    const section = page.locator('#channels');
    expect(await section.locator('.channel-status').allInnerTexts()).toEqual(['Active', 'Verifying']);
    expect(await section.locator('.channel-title strong').allInnerTexts()).toEqual(['Slack', 'Telegram']);
    await expect(section.locator('#channel-kind').isVisible()).resolves.toBe(true);
    // Nothing reached Telegram yet: the chat is bound only when its owner presses Start.
    expect(standIn.received({ platform: 'telegram' })).toEqual([]);
    expect(cspViolations).toEqual([]);
    await section.scrollIntoViewIfNeeded();
    await screenshotOf(section, '22-preferences-channels');
  });
});
