import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleUnsubscribeRequest } from '../../lib/subscriptions/handle-unsubscribe-request';
import { handleUndoUnsubscribeRequest } from '../../lib/subscriptions/handle-undo-unsubscribe-request';
import { undoUnsubscribe, UNDO_WINDOW_DAYS } from '../../lib/subscriptions/undo-unsubscribe';
import { changeStatus } from '../../lib/subscriptions/preferences';
import { signLinkToken, undoUnsubscribeUrl, unsubscribeUrl } from '../../lib/subscribers/link-token';
import { createHarness, type Harness } from '../support/harness';
import { minutesAfter, postSignup } from './signup-fixture';

/**
 * "Undo" after unsubscribing: a POST to a link that carries the link version its own unsubscribe
 * wrote, working for UNDO_WINDOW_DAYS. The database referees: one undo of many restores, and an
 * undo never revives a subscriber who unsubscribed again, signed up again or was deleted.
 */
const T0 = new Date('2026-11-30T06:00:00Z');
const at = (minutes: number) => minutesAfter(T0, minutes);
const DAY = 24 * 60;
let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const userDoc = async (uid: string) => (await h.db.collection('users').doc(uid).get()).data();
const unsubscribeLink = (uid: string, linkVersion = 0) =>
  unsubscribeUrl({ appUrl: h.config.APP_URL, uid, linkVersion, secret: h.config.LINK_SECRET, issuedAt: T0 });

async function unsubscribe(url: string, now: Date) {
  const init = { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  const response = await handleUnsubscribeRequest(new Request(url, init), { db: h.db, config: h.config, now });
  return { status: response.status, html: await response.text() };
}

async function undo(method: 'GET' | 'POST', url: string, now: Date) {
  const init: RequestInit =
    method === 'POST' ? { method, body: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } } : { method };
  const response = await handleUndoUnsubscribeRequest(new Request(url, init), { db: h.db, config: h.config, now });
  return { status: response.status, html: await response.text() };
}

/** The undo form's action on an unsubscribed page, as an absolute link. */
function undoLinkIn(html: string): string {
  const action = /<form action="(\/unsubscribe\/undo\?token=[\w.-]+)" method="post">/.exec(html)?.[1];
  if (!action) throw new Error(`no undo form in:\n${html}`);
  return `${h.config.APP_URL}${action}`;
}

describe('the page of an unsubscribe offers Undo, and the undo gives the subscription back', () => {
  it('unsubscribe, GET the undo link (changes nothing), POST it: active again, same preferences', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    const page = await unsubscribe(unsubscribeLink(uid), at(0));
    expect(page.html).toContain('You are unsubscribed');
    expect(page.html).toContain(`Undo works for ${UNDO_WINDOW_DAYS} days`);
    const link = undoLinkIn(page.html);

    const before = await h.dump();
    const ask = await undo('GET', link, at(1));
    expect(ask.status).toBe(200);
    expect(ask.html).toContain('Undo my unsubscribe');
    expect(await h.dump()).toEqual(before);

    const done = await undo('POST', link, at(2));
    expect(done.status).toBe(200);
    expect(done.html).toContain('You are subscribed again');
    const user = await userDoc(uid);
    expect(user).toMatchObject({ status: 'active', mode: 'daily', keywords: ['react'], linkVersion: 1 });
    expect(user).not.toHaveProperty('unsubscribedFrom');

    // Pressed again: nothing more happens.
    const after = await h.dump();
    expect((await undo('POST', link, at(3))).html).toContain('You are still subscribed');
    expect(await h.dump()).toEqual(after);
  });

  it('a paused subscriber comes back paused', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    await changeStatus(h.db, { uid, action: 'pause', now: at(0) });
    const link = undoLinkIn((await unsubscribe(unsubscribeLink(uid), at(1))).html);
    expect((await undo('POST', link, at(2))).html).toContain('paused as it was');
    expect(await userDoc(uid)).toMatchObject({ status: 'paused' });
  });

  it('8 undos awaited together: exactly one resubscribes', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    const link = undoLinkIn((await unsubscribe(unsubscribeLink(uid), at(0))).html);
    const token = new URL(link).searchParams.get('token');
    const results = await Promise.all(
      Array.from({ length: 8 }, () => undoUnsubscribe(h.db, { token, secret: h.config.LINK_SECRET, now: at(1) })),
    );
    expect(results.filter((r) => r.ok && !r.alreadyUndone)).toHaveLength(1);
    expect(results.filter((r) => r.ok && r.alreadyUndone)).toHaveLength(7);
    const user = await userDoc(uid);
    expect(user).toMatchObject({ status: 'active' });
    expect(user!.updatedAt.toDate()).toEqual(at(1));
  });
});

describe('an undo link that cannot undo gets a clear page and changes nothing', () => {
  it(`expired: ${UNDO_WINDOW_DAYS} days after the unsubscribe`, async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    const link = undoLinkIn((await unsubscribe(unsubscribeLink(uid), at(0))).html);
    const before = await h.dump();
    for (const method of ['GET', 'POST'] as const) {
      const page = await undo(method, link, at(UNDO_WINDOW_DAYS * DAY));
      expect(page.status, method).toBe(410);
      expect(page.html, method).toContain('This undo link has expired');
      expect(page.html, method).not.toContain('<form');
    }
    // A minute earlier it still worked.
    expect(await h.dump()).toEqual(before);
    expect((await undo('POST', link, at(UNDO_WINDOW_DAYS * DAY - 1))).status).toBe(200);
  });

  it('stale: they came back by the undo and unsubscribed again; the first undo link cannot revive them', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    const first = undoLinkIn((await unsubscribe(unsubscribeLink(uid), at(0))).html);
    await undo('POST', first, at(1));
    // Unsubscribing again, with the same old email's link (any version unsubscribes).
    const second = await unsubscribe(unsubscribeLink(uid, 1), at(2));
    expect(undoLinkIn(second.html)).not.toBe(first);

    const before = await h.dump();
    for (const method of ['GET', 'POST'] as const) {
      const page = await undo(method, first, at(3));
      expect(page.status, method).toBe(409);
      expect(page.html, method).toContain('This undo link no longer applies');
    }
    expect(await h.dump()).toEqual(before);
    expect(await userDoc(uid)).toMatchObject({ status: 'unsubscribed', linkVersion: 2 });
  });

  it('stale: the address was signed up again since (by anyone); the undo does not skip that signup’s opt-in', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    const link = undoLinkIn((await unsubscribe(unsubscribeLink(uid), at(0))).html);
    expect((await postSignup(h, { email: 'ada@example.com', keywords: 'cobol', mode: 'instant' }, { now: at(5) })).status).toBe(202);
    const page = await undo('POST', link, at(6));
    expect(page.status).toBe(409);
    expect(await userDoc(uid)).toMatchObject({ status: 'pending', keywords: ['cobol'] });
  });

  it('deleted: an undo never brings a deleted subscriber back', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    const link = undoLinkIn((await unsubscribe(unsubscribeLink(uid), at(0))).html);
    await h.db.collection('users').doc(uid).delete();
    const page = await undo('POST', link, at(1));
    expect(page.status).toBe(404);
    expect((await h.db.collection('users').doc(uid).get()).exists).toBe(false);
  });

  it('an old unsubscribe link replayed after an unsubscribe offers no undo, so it cannot be turned into a resubscribe', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    await unsubscribe(unsubscribeLink(uid), at(0));
    const replay = await unsubscribe(unsubscribeLink(uid), at(1));
    expect(replay.html).toContain('You are unsubscribed');
    expect(replay.html).not.toContain('/unsubscribe/undo');
    // Neither does an older link that does the unsubscribing: its page tells nothing of the subscriber.
    const other = await h.subscribe({ email: 'bob@example.com', keywords: ['react'] });
    await h.db.collection('users').doc(other).update({ linkVersion: 3 });
    expect((await unsubscribe(unsubscribeLink(other, 0), at(2))).html).not.toContain('/unsubscribe/undo');
  });

  it('a pending signup that unsubscribed has nothing to undo: no Undo offered, and a forged one is refused', async () => {
    expect((await postSignup(h, { email: 'ada@example.com', keywords: 'react', mode: 'instant' }, { now: at(0) })).status).toBe(202);
    const uid = Buffer.from('ada@example.com').toString('base64url');
    const page = await unsubscribe(unsubscribeLink(uid), at(1));
    expect(page.html).not.toContain('/unsubscribe/undo');
    const forged = undoUnsubscribeUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: at(1), linkVersion: 1 });
    const refused = await undo('POST', forged, at(2));
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('There is nothing to undo');
    expect(await userDoc(uid)).toMatchObject({ status: 'unsubscribed' });
  });

  it('an unsubscribe link is not an undo link, nor the other way round', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    const link = undoLinkIn((await unsubscribe(unsubscribeLink(uid), at(0))).html);
    const asUndo = await undo(
      'POST',
      `${h.config.APP_URL}/unsubscribe/undo?token=${new URL(unsubscribeLink(uid)).searchParams.get('token')}`,
      at(1),
    );
    expect(asUndo.status).toBe(400);
    const tampered = signLinkToken({ uid, purpose: 'undo', exp: 4_000_000_000, linkVersion: 1 }, 'another-secret-0123456789abcdef');
    expect((await undo('POST', `${h.config.APP_URL}/unsubscribe/undo?token=${tampered}`, at(1))).status).toBe(400);
    expect(await userDoc(uid)).toMatchObject({ status: 'unsubscribed' });
    expect(link).toContain('/unsubscribe/undo?token=');
  });
});
