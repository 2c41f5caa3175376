import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { putDelivery, deliveriesOf } from '../support/deliveries';
import { handleUnsubscribeRequest } from '../../lib/subscriptions/handle-unsubscribe-request';
import { unsubscribeUrl } from '../../lib/subscribers/link-token';
import { changeStatus } from '../../lib/subscriptions/preferences';
import { createHarness, type Harness } from '../support/harness';

/**
 * The unsubscribe page offers pause and "weekly instead" beside the one-click button, each its own
 * POST; the one-click button, and RFC 8058's POST, still unsubscribe in one click.
 */
const NOW = new Date('2026-11-30T06:00:00Z');
let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const linkFor = (uid: string, linkVersion?: number) =>
  unsubscribeUrl({ appUrl: h.config.APP_URL, uid, linkVersion, secret: h.config.LINK_SECRET, issuedAt: NOW });
const userDoc = async (uid: string) => (await h.db.collection('users').doc(uid).get()).data();

async function call(url: string, body: string | null, contentType = 'application/x-www-form-urlencoded') {
  const init: RequestInit = body === null ? { method: 'GET' } : { method: 'POST', body, headers: { 'content-type': contentType } };
  const response = await handleUnsubscribeRequest(new Request(url, init), { db: h.db, config: h.config, now: NOW });
  return { status: response.status, html: await response.text() };
}

describe('GET /unsubscribe offers the gentler choices, and changes nothing', () => {
  it('a daily subscriber: unsubscribe first, then pause and weekly, each a POST form to the same link', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    const before = await h.dump(['users', 'deliveries']);
    const page = await call(linkFor(uid), null);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<input type="hidden" name="action" value="pause"/>');
    expect(page.html).toContain('<input type="hidden" name="action" value="weekly"/>');
    expect(page.html.match(/<form[^>]*method="post"/g)).toHaveLength(3);
    expect(page.html).not.toMatch(/<a [^>]*href="[^"]*action=/);
    expect(await h.dump(['users', 'deliveries'])).toEqual(before);
  });

  it('offers only what applies: no "weekly" to a weekly subscriber, no "pause" to a paused one', async () => {
    const weekly = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'weekly' });
    const page = await call(linkFor(weekly), null);
    expect(page.html).toContain('value="pause"');
    expect(page.html).not.toContain('value="weekly"');

    const paused = await h.subscribe({ email: 'bob@example.com', keywords: ['react'], mode: 'instant' });
    await changeStatus(h.db, { uid: paused, action: 'pause', now: NOW });
    const pausedPage = await call(linkFor(paused), null);
    expect(pausedPage.html).not.toContain('value="pause"');
    expect(pausedPage.html).toContain('value="weekly"');
  });

  it('an older link (a later revoke or unsubscribe moved the version) offers nothing but the unsubscribe', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    await h.db.collection('users').doc(uid).update({ linkVersion: 1 });
    const page = await call(linkFor(uid, 0), null);
    expect(page.html).not.toContain('name="action"');
    expect(page.html.match(/<button/g)).toHaveLength(1);
  });
});

describe('POST action=pause / action=weekly keeps the subscription', () => {
  it('pause: the subscriber is paused, queued digest items closed, and the page still offers to unsubscribe', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    await putDelivery(h.db, { uid, jobId: 'rss_a', status: 'queued', mode: 'daily', emailKey: null, now: NOW });
    const page = await call(linkFor(uid), 'action=pause');
    expect(page.status).toBe(200);
    expect(page.html).toContain('Your emails are paused');
    expect(page.html).toContain('name="List-Unsubscribe"');
    expect(await userDoc(uid)).toMatchObject({ status: 'paused', mode: 'daily' });
    expect((await deliveriesOf(h.db, uid)).map((d) => [d.status, d.reason])).toEqual([['skipped', 'subscriber_paused']]);
    expect((await userDoc(uid))!.unsubscribedAt).toBeUndefined();
  });

  it('weekly: the mode changes, nothing else, and a second press changes nothing more', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], excludes: ['php'], mode: 'instant' });
    const page = await call(linkFor(uid), 'action=weekly');
    expect(page.status).toBe(200);
    expect(page.html).toContain('one digest a week');
    expect(await userDoc(uid)).toMatchObject({ status: 'active', mode: 'weekly', keywords: ['react'], excludes: ['php'] });

    const before = await h.dump(['users']);
    const again = await call(linkFor(uid), 'action=weekly');
    expect(again.html).toContain('already getting one digest a week');
    expect(await h.dump(['users'])).toEqual(before);
  });

  it('through an older link, pause and weekly are refused and change nothing; the link still unsubscribes', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    await h.db.collection('users').doc(uid).update({ linkVersion: 1 });
    const before = await h.dump(['users']);
    for (const action of ['pause', 'weekly']) {
      const page = await call(linkFor(uid, 0), `action=${action}`);
      expect(page.status, action).toBe(409);
      expect(page.html, action).toContain('it can still unsubscribe you');
    }
    expect(await h.dump(['users'])).toEqual(before);
    expect((await call(linkFor(uid, 0), 'List-Unsubscribe=One-Click')).html).toContain('You are unsubscribed');
    expect(await userDoc(uid)).toMatchObject({ status: 'unsubscribed' });
  });

  it('cannot revive an unsubscribed subscriber: pause and weekly are refused', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    await h.db.collection('users').doc(uid).update({ status: 'unsubscribed' });
    for (const action of ['pause', 'weekly']) {
      const page = await call(linkFor(uid), `action=${action}`);
      expect(page.status, action).toBe(409);
    }
    expect(await userDoc(uid)).toMatchObject({ status: 'unsubscribed', mode: 'daily' });
  });
});

describe('one click still unsubscribes, whatever else the body holds', () => {
  it.each([
    ['RFC 8058 form body', 'List-Unsubscribe=One-Click', 'application/x-www-form-urlencoded'],
    ['an unknown action', 'action=delete-everything', 'application/x-www-form-urlencoded'],
    [
      'a multipart body',
      '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--',
      'multipart/form-data; boundary=x',
    ],
    ['an empty body', '', 'text/plain'],
  ])('%s', async (_name, body, type) => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    const page = await call(linkFor(uid), body, type);
    expect(page.status).toBe(200);
    expect(page.html).toContain('You are unsubscribed');
    expect(await userDoc(uid)).toMatchObject({ status: 'unsubscribed' });
  });
});
