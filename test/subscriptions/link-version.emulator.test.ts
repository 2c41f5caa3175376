import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleArchiveRequest } from '../../lib/archive/handle-archive-request';
import { handleFeedRequest } from '../../lib/archive/handle-feed-request';
import { handlePreferencesRequest } from '../../lib/subscriptions/handle-preferences-request';
import { handleUnsubscribeRequest } from '../../lib/subscriptions/handle-unsubscribe-request';
import { archiveUrl, feedUrl, preferencesUrl, unsubscribeUrl } from '../../lib/subscribers/link-token';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';
import { callConfirm, callUnsubscribe, linkIn, minutesAfter, postSignup } from './signup-fixture';

/**
 * Emailed links die when the subscription they were sent for does: an unsubscribe, a re-signup or
 * "Revoke my links" moves the subscriber's `linkVersion`, and a link signed with an older one opens
 * nothing but an unsubscribe (which reveals nothing).
 */

const NOW = new Date('2026-11-30T06:00:00Z');
const ADA = 'ada.lovelace@example.com';
let h: Harness;
let uid: string;

beforeEach(async () => {
  h = await createHarness();
  uid = await h.subscribe({ email: ADA, keywords: ['react'] });
});
afterEach(async () => h.close());

const deps = (now = NOW) => ({ db: h.db, config: h.config, now });
const link = (issuedAt = NOW) => ({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt });
const form = (body: string): RequestInit => ({ method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
const feedUrlOn = (html: string) => /id="feed-url"[^>]* value="([^"]+)"/.exec(html)?.[1].replace(/&amp;/g, '&');

async function page(handler: (request: Request, deps: any) => Promise<Response>, url: string, init?: RequestInit, now = NOW) {
  const response = await handler(new Request(url, init), deps(now));
  return { status: response.status, html: await response.text() };
}

describe('links of a subscription that ended', () => {
  it('after an unsubscribe and a re-signup, the old archive and preferences links open nothing', async () => {
    const oldArchive = archiveUrl(link());
    const oldPreferences = preferencesUrl(link());
    expect((await page(handleArchiveRequest, oldArchive)).status).toBe(200);
    expect((await page(handlePreferencesRequest, oldPreferences)).status).toBe(200);

    expect((await callUnsubscribe(h, unsubscribeUrl(link()), minutesAfter(NOW, 1))).status).toBe(200);
    const again = await postSignup(h, { email: ADA, keywords: 'react, go', mode: 'instant' }, { now: minutesAfter(NOW, 2) });
    expect(again.status).toBe(202);
    const [confirmation] = (await h.inbox(ADA)).filter((m) => m.subject?.match(/confirm/i));
    const confirmed = await callConfirm(h, 'POST', linkIn(confirmation.text, h.config.APP_URL, '/confirm'), minutesAfter(NOW, 3));
    expect(confirmed.status).toBe(200);

    const later = minutesAfter(NOW, 4);
    const archive = await page(handleArchiveRequest, oldArchive, undefined, later);
    expect(archive.status).not.toBe(200);
    const preferences = await page(handlePreferencesRequest, oldPreferences, undefined, later);
    expect(preferences.status).not.toBe(200);
    expect(preferences.html).toContain('This link has expired');
    expect(preferences.html).toContain('ask for a new one');
    expect(preferences.html).not.toContain('react, go');
  });
});

describe('"Revoke my links" on the preferences page', () => {
  it('kills every emailed link at once: a leaked preferences link no longer shows the feed URL, old archive and feed URLs open nothing', async () => {
    const leaked = preferencesUrl(link());
    const before = await page(handlePreferencesRequest, leaked);
    expect(before.html.includes('Revoke my links'), 'a Revoke my links button').toBe(true);
    const oldFeed = feedUrlOn(before.html)!;
    expect((await page(handleFeedRequest, oldFeed)).status).toBe(200);

    const revoked = await page(handlePreferencesRequest, leaked, form('action=revoke-links'));
    expect(revoked.status).toBe(200);
    expect(revoked.html).not.toContain('/feed?token=');
    expect((await h.db.collection('users').doc(uid).get()).get('linkVersion')).toBe(1);

    const after = await page(handlePreferencesRequest, leaked);
    expect(after.status).toBe(400);
    expect(after.html).not.toContain('/feed?token=');
    expect(after.html).toContain('ask for a new one');
    expect((await page(handlePreferencesRequest, leaked, form('action=revoke-feed'))).html).not.toContain('/feed?token=');
    expect((await page(handleArchiveRequest, archiveUrl(link()))).status).toBe(404);
    expect((await page(handleFeedRequest, oldFeed)).status).toBe(404);
  });

  it('the way to a new link works: after the revoke, the signup form mails a preferences link that opens', async () => {
    await page(handlePreferencesRequest, preferencesUrl(link()), form('action=revoke-links'));
    const asked = await postSignup(h, { email: ADA, keywords: 'react', mode: 'instant' }, { now: minutesAfter(NOW, 1) });
    expect(asked.status).toBe(202);
    const [manage] = await h.inbox(ADA);
    const fresh = await page(
      handlePreferencesRequest,
      linkIn(manage.text, h.config.APP_URL, '/preferences'),
      undefined,
      minutesAfter(NOW, 2),
    );
    expect(fresh.status).toBe(200);
    expect(fresh.html).toContain('/feed?token=');
  });

  it('an unsubscribe link of an older version still unsubscribes, and names nobody', async () => {
    const old = unsubscribeUrl(link());
    await page(handlePreferencesRequest, preferencesUrl(link()), form('action=revoke-links'));
    const asked = await page(handleUnsubscribeRequest, old);
    expect(asked.status).toBe(200);
    expect(asked.html.includes('a***@example.com'), 'the masked address on an old link').toBe(false);
    const done = await page(handleUnsubscribeRequest, old, form('List-Unsubscribe=One-Click'));
    expect(done.status).toBe(200);
    expect((await h.db.collection('users').doc(uid).get()).get('status')).toBe('unsubscribed');
  });
});

/** Every segment of a URL, and every base64url run inside it decoded, nested ones too: none may spell an address. */
function decodedSegments(url: string): string[] {
  const parsed = new URL(url);
  const found: string[] = [];
  const open = (text: string, depth: number) => {
    found.push(text);
    if (depth === 0) return;
    for (const run of text.match(/[A-Za-z0-9_-]{6,}/g) ?? []) open(Buffer.from(run, 'base64url').toString('utf8'), depth - 1);
  };
  for (const part of [...parsed.pathname.split('/'), ...parsed.searchParams.values()]) open(decodeURIComponent(part), 3);
  return found;
}
const urlsIn = (text: string, appUrl: string) => text.match(new RegExp(`${appUrl.replace(/[.]/g, '\\.')}[^\\s"<>]+`, 'g')) ?? [];

/** A link as Scout signed them before the seal: the users/ id, the address in base64url, in clear. */
function clearLink(path: string, purpose: string) {
  const body = Buffer.from(JSON.stringify({ uid, purpose, exp: Math.floor(NOW.getTime() / 1000) + 86_400 })).toString('base64url');
  return `${h.config.APP_URL}${path}?token=${body}.${createHmac('sha256', h.config.LINK_SECRET).update(body).digest('base64url')}`;
}

describe('tokens that name nobody', () => {
  it('a link from before the seal: a preferences link asks for a new one, an unsubscribe link still unsubscribes and shows nothing', async () => {
    const preferences = await page(handlePreferencesRequest, clearLink('/preferences', 'preferences'));
    expect(preferences.status).toBe(400);
    expect(preferences.html).toContain('This link has expired — ask for a new one');
    const asked = await page(handleUnsubscribeRequest, clearLink('/unsubscribe', 'unsubscribe'));
    expect(asked.status).toBe(200);
    expect(asked.html.includes('a***@example.com'), 'the masked address on an old link').toBe(false);
    const done = await page(handleUnsubscribeRequest, clearLink('/unsubscribe', 'unsubscribe'), form('List-Unsubscribe=One-Click'));
    expect(done.status).toBe(200);
    expect((await h.db.collection('users').doc(uid).get()).get('status')).toBe('unsubscribed');
  });

  it('no segment of any emailed URL, nor of the Atom feed rel="self" link, decodes to an address', async () => {
    h.serveFeed(postingsAbout('react', 2, { at: NOW }));
    await h.run({ now: NOW.toISOString() });
    const [alert] = await h.inbox(ADA);
    const urls = [...urlsIn(alert.text!, h.config.APP_URL), ...urlsIn(alert.html!.replace(/&amp;/g, '&'), h.config.APP_URL)];
    expect(urls.some((u) => u.includes('/not-a-fit?'))).toBe(true);
    expect(urls.some((u) => u.includes('/unsubscribe?'))).toBe(true);
    for (const header of Object.values(alert.headers ?? {})) urls.push(...urlsIn(String(header), h.config.APP_URL));

    const feed = await page(handleFeedRequest, feedUrl({ ...link(), version: 0 }), undefined, minutesAfter(NOW, 5));
    const self = /<link[^>]*rel="self"[^>]*href="([^"]+)"|<link[^>]*href="([^"]+)"[^>]*rel="self"/.exec(feed.html);
    expect(self).toBeTruthy();
    urls.push((self![1] ?? self![2]).replace(/&amp;/g, '&'));

    for (const url of urls) {
      for (const segment of decodedSegments(url)) {
        expect(segment.toLowerCase().includes('ada.lovelace'), `${url} decodes to ${segment}`).toBe(false);
        expect(/[\w.+-]+@[\w-]+\.[\w.]+/.test(segment), `${url} decodes to ${segment}`).toBe(false);
      }
    }
  });
});
