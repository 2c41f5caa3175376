import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlePreferencesRequest } from '../../lib/subscriptions/handle-preferences-request';
import { preferencesUrl } from '../../lib/subscribers/link-token';
import { createHarness, type Harness } from '../support/harness';
import { launchChromium, screenshot, watchForCspViolations } from '../support/browser';
import { freePort } from '../support/free-port';
import { codeSentTo, postingChannelTest, startChannelReceiver, type ChannelReceiver } from '../support/channel-receiver';

/**
 * A subscriber adds a Slack channel on the preferences page in Debian's Chromium, reads the code
 * Scout posted to "Slack" (the local receiver), types it, and sees the channel Active; no content
 * security policy complaint on the way. The page is served by its real handler on a local server
 * (with the real stylesheet and every response's own headers), not by `next start`: production's
 * `sendChannelTest` is the channels' transport, wired where that is built, so here the handler is
 * given one that really posts to the receiver (test/support/channel-receiver.ts).
 */
let browser: Browser;
let h: Harness;
let receiver: ChannelReceiver;
let app: Server;
let appUrl: string;
const cspViolations: string[] = [];

beforeAll(async () => {
  receiver = await startChannelReceiver();
  const port = await freePort();
  appUrl = `http://127.0.0.1:${port}`;
  h = await createHarness({ APP_URL: appUrl, CHANNEL_ALLOW_LOOPBACK: 'true' });
  const sendChannelTest = postingChannelTest({ telegramApi: receiver.url, botToken: 'unused' });
  app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', appUrl);
      const file = new URL(`../../public${url.pathname}`, import.meta.url);
      if (url.pathname !== '/preferences') {
        const found = /^\/[\w.-]+$/.test(url.pathname) && existsSync(file);
        const type = url.pathname.endsWith('.css')
          ? 'text/css'
          : url.pathname.endsWith('.js')
            ? 'text/javascript'
            : 'application/octet-stream';
        res.writeHead(found ? 200 : 404, { 'content-type': type }).end(found ? readFileSync(file) : '');
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const request = new Request(url, { method: req.method, headers, body: req.method === 'POST' ? Buffer.concat(chunks) : undefined });
      void handlePreferencesRequest(request, { db: h.db, config: h.config, now: new Date(), sendChannelTest }).then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => app.listen(port, '127.0.0.1', resolve));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  app?.closeAllConnections();
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
  await receiver?.close();
  await h?.close();
});

describe('adding a Slack channel in a browser', () => {
  it('sends a code, takes it back, and shows the channel Active', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    watchForCspViolations(page, cspViolations);
    await page.goto(preferencesUrl({ appUrl, uid, secret: h.config.LINK_SECRET, issuedAt: new Date() }));
    await expect(page.locator('#channels-title').textContent()).resolves.toBe('Also send to…');

    const path = '/services/T0001/B0001/abcdefXYZ';
    await page.selectOption('#channel-kind', 'slack');
    await page.fill('#channel-url', `${receiver.url}${path}`);
    await page.click('button:has-text("Add channel")');
    await page.waitForSelector('text=Scout sent a 6-digit code to Slack');
    const code = codeSentTo(receiver, path);
    expect(code).toMatch(/^\d{6}$/);

    await page.fill('input[name="code"]', code!);
    await page.click('button:has-text("Verify")');
    await page.waitForSelector('text=Verified: this channel gets your postings');
    await expect(page.locator('.channel-status').textContent()).resolves.toBe('Active');
    await expect(page.locator('input[name="digest"]').isEnabled()).resolves.toBe(true);
    await page.locator('#channels').scrollIntoViewIfNeeded();
    await screenshot(page, 'channels-slack-active');
    expect(cspViolations).toEqual([]);
    await page.close();
  });
});
