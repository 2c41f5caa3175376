import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Delivery, DeliveryStatus } from '../../lib/ledger/delivery';
import { deliveriesOf, putDelivery } from '../support/deliveries';
import { handleUnsubscribeRequest } from '../../lib/subscriptions/handle-unsubscribe-request';
import { signLinkToken, unsubscribeUrl } from '../../lib/subscribers/link-token';
import { unsubscribeSubscriber } from '../../lib/subscriptions/unsubscribe';
import { createHarness, type Harness } from '../support/harness';

const NOW = new Date('2026-11-30T06:00:00Z');
const LATER = new Date('2026-11-30T07:00:00Z');
let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const linkFor = (uid: string, linkVersion?: number) =>
  unsubscribeUrl({ appUrl: h.config.APP_URL, uid, linkVersion, secret: h.config.LINK_SECRET, issuedAt: NOW });
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

async function call(method: 'GET' | 'POST', url: string, now = NOW) {
  const init: RequestInit =
    method === 'POST'
      ? // What an RFC 8058 mail client sends: the form-encoded one-click body, no cookies.
        { method, body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } }
      : { method };
  const response = await handleUnsubscribeRequest(new Request(url, init), { db: h.db, config: h.config, now });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    cache: response.headers.get('cache-control'),
    html: await response.text(),
  };
}

async function addDelivery(uid: string, jobId: string, status: DeliveryStatus, mode: Delivery['mode'] = 'daily') {
  const emailKey = status === 'sending' ? `digest_${uid}_2026-11-30` : null;
  await putDelivery(h.db, { uid, jobId, status, mode, emailKey, now: NOW });
}

const deliveryState = async (uid: string, jobId: string) => {
  const d = (await deliveriesOf(h.db, uid)).find((line) => line.jobId === jobId)!;
  return { status: d.status, reason: d.reason };
};
const userDoc = async (uid: string) => (await h.db.collection('users').doc(uid).get()).data();

describe('GET /unsubscribe', () => {
  it('shows one button that posts back to the same link, and changes nothing', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    await addDelivery(uid, 'rss_a', 'queued');
    const before = await h.dump();

    const page = await call('GET', linkFor(uid));
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.cache).toBe('no-store');
    expect(page.html).toContain('<html lang="en">');
    expect(page.html).toContain(`<form action="?token=${tokenOf(linkFor(uid))}" method="post">`);
    expect(page.html).toContain('<input type="hidden" name="List-Unsubscribe" value="One-Click"/>');
    // The one-click button, then the gentler choices beside it (unsubscribe-alternatives.emulator.test.ts): pause, weekly.
    expect(page.html.match(/<button/g)).toHaveLength(3);
    expect(page.html.indexOf('name="List-Unsubscribe"')).toBeLessThan(page.html.indexOf('name="action"'));
    expect(page.html).not.toContain('<script');
    expect(page.html).toContain('a***@example.com');
    expect(page.html).not.toContain('ada@example.com');

    expect(await h.dump()).toEqual(before);
  });

  it('says so when the subscriber already left, to a link of their current version only', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    await call('POST', linkFor(uid));
    // Unsubscribing moved their link version to 1; a link signed with it (none is emailed, but one could exist) hears the state.
    const page = await call('GET', linkFor(uid, 1));
    expect(page.status).toBe(200);
    expect(page.html).toContain('already unsubscribed');
    expect(page.html).not.toContain('<form');
    // The link that unsubscribed is of the version before: it may unsubscribe again, and learns nothing, not even that they left.
    const old = await call('GET', linkFor(uid));
    expect(old.status).toBe(200);
    expect(old.html).toContain('<form');
    expect(old.html).not.toContain('already unsubscribed');
    expect(old.html).not.toContain('a***@example.com');
  });
});

describe('POST /unsubscribe (one-click and the button)', () => {
  it('unsubscribes and closes the queued deliveries, leaving everyone and everything else alone', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    const other = await h.subscribe({ email: 'bob@example.com', keywords: ['react'], mode: 'daily' });
    await addDelivery(uid, 'rss_a', 'queued');
    await addDelivery(uid, 'rss_b', 'queued');
    await addDelivery(uid, 'rss_c', 'sending');
    await addDelivery(uid, 'rss_d', 'skipped');
    await addDelivery(other, 'rss_a', 'queued');

    const page = await call('POST', linkFor(uid));
    expect(page.status).toBe(200);
    expect(page.html).toContain('You are unsubscribed');

    const user = await userDoc(uid);
    expect(user).toMatchObject({ status: 'unsubscribed', email: 'ada@example.com' });
    expect(user!.unsubscribedAt.toDate()).toEqual(NOW);
    expect(user!.updatedAt.toDate()).toEqual(NOW);
    expect(await deliveryState(uid, 'rss_a')).toEqual({ status: 'skipped', reason: 'subscriber_unsubscribed' });
    expect(await deliveryState(uid, 'rss_b')).toEqual({ status: 'skipped', reason: 'subscriber_unsubscribed' });
    // In flight or closed: the dispatcher's own check before the send owns the first.
    expect(await deliveryState(uid, 'rss_c')).toEqual({ status: 'sending', reason: null });
    expect(await deliveryState(uid, 'rss_d')).toEqual({ status: 'skipped', reason: null });
    expect(await deliveryState(other, 'rss_a')).toEqual({ status: 'queued', reason: null });
    expect(await userDoc(other)).toMatchObject({ status: 'active' });
  });

  it('is idempotent: a repeat keeps the first time, and sweeps items queued since', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    expect(await unsubscribeSubscriber(h.db, { token: tokenOf(linkFor(uid)), secret: h.config.LINK_SECRET, now: NOW })).toEqual({
      ok: true,
      uid,
      alreadyUnsubscribed: false,
      skippedDeliveries: 0,
      olderLink: false,
      // The version this unsubscribe wrote: its undo link carries it (undo-unsubscribe.emulator.test.ts).
      undoable: { linkVersion: 1 },
    });

    // A run that read the subscriber as active just before the opt-out still queued an item.
    await addDelivery(uid, 'rss_late', 'queued');
    const again = await call('POST', linkFor(uid), LATER);
    expect(again.status).toBe(200);
    // The link is now of an older link version (the unsubscribe bumped it): its answer says nothing of the state before.
    expect(again.html).toContain('Scout will not send you any more job alerts');
    expect(again.html).not.toContain('already unsubscribed');
    expect(await deliveryState(uid, 'rss_late')).toEqual({ status: 'skipped', reason: 'subscriber_unsubscribed' });
    const user = await userDoc(uid);
    expect(user!.unsubscribedAt.toDate()).toEqual(NOW);
    expect(user!.updatedAt.toDate()).toEqual(NOW);

    const before = await h.dump();
    expect((await call('POST', linkFor(uid), LATER)).status).toBe(200);
    expect(await h.dump()).toEqual(before);
  });

  it('two clicks at the same moment both succeed and only one of them unsubscribes', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    const input = { token: tokenOf(linkFor(uid)), secret: h.config.LINK_SECRET, now: NOW };
    const results = await Promise.all([unsubscribeSubscriber(h.db, input), unsubscribeSubscriber(h.db, input)]);
    expect(results.map((r) => r.ok && r.alreadyUnsubscribed).sort()).toEqual([false, true]);
    expect(await userDoc(uid)).toMatchObject({ status: 'unsubscribed' });
  });

  it('unsubscribing revokes the private feed URL: it moves the feed version once, however many clicks', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    const input = { token: tokenOf(linkFor(uid)), secret: h.config.LINK_SECRET, now: NOW };
    await Promise.all([unsubscribeSubscriber(h.db, input), unsubscribeSubscriber(h.db, input), unsubscribeSubscriber(h.db, input)]);
    expect(await userDoc(uid)).toMatchObject({ status: 'unsubscribed', feedTokenVersion: 1 });
  });

  it('an import afterwards does not bring the subscriber back', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    await call('POST', linkFor(uid));
    await h.subscribe({ email: 'ADA@example.com', keywords: ['vue'] });
    expect(await userDoc(uid)).toMatchObject({ status: 'unsubscribed', keywords: ['react'] });
  });
});

describe('a link that does not work', () => {
  it('answers 400 with a clear page and changes nothing, for GET and POST alike', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    await addDelivery(uid, 'rss_a', 'queued');
    const good = tokenOf(linkFor(uid));
    const [body, signature] = good.split('.');
    const forged = Buffer.from(JSON.stringify({ uid, purpose: 'unsubscribe', exp: 4_000_000_000 })).toString('base64url');
    const cases: Record<string, { token: string; says: string }> = {
      'tampered body': { token: `${forged}.${signature}`, says: 'This link is not valid' },
      'tampered signature': { token: `${body}.${signature.slice(0, -2)}xx`, says: 'This link is not valid' },
      'another secret': {
        token: signLinkToken({ uid, purpose: 'unsubscribe', exp: 4_000_000_000 }, 'some-other-secret-0123456789'),
        says: 'This link is not valid',
      },
      expired: {
        token: signLinkToken({ uid, purpose: 'unsubscribe', exp: NOW.getTime() / 1000 - 1 }, h.config.LINK_SECRET),
        says: 'This link has expired',
      },
      'wrong purpose': {
        token: signLinkToken({ uid, purpose: 'preferences', exp: 4_000_000_000 }, h.config.LINK_SECRET),
        says: 'This is not an unsubscribe link',
      },
      malformed: { token: 'not-a-token', says: 'This link is not valid' },
      missing: { token: '', says: 'This link is not valid' },
    };
    const before = await h.dump();
    for (const [name, { token, says }] of Object.entries(cases)) {
      for (const method of ['GET', 'POST'] as const) {
        const page = await call(method, `http://localhost:3000/unsubscribe?token=${encodeURIComponent(token)}`);
        expect(page.status, `${name} ${method}`).toBe(400);
        expect(page.type).toBe('text/html; charset=utf-8');
        expect(page.html, `${name} ${method}`).toContain(says);
        expect(page.html).not.toContain('<form');
      }
    }
    expect(await call('POST', 'http://localhost:3000/unsubscribe')).toMatchObject({ status: 400 });
    expect(await h.dump()).toEqual(before);
  });

  it('a valid link for a subscriber who is gone answers 404 and creates nobody', async () => {
    const uid = Buffer.from('gone@example.com').toString('base64url');
    for (const method of ['GET', 'POST'] as const) {
      const page = await call(method, linkFor(uid));
      expect(page.status).toBe(404);
      expect(page.html).toContain('No subscription found');
    }
    expect(await userDoc(uid)).toBeUndefined();
  });
});
