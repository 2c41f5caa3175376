import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { signLinkToken, unsubscribeUrl } from '../../lib/subscribers/link-token';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { createHarness, type Harness } from '../support/harness';
import { callConfirm, callUnsubscribe, linkIn, minutesAfter, postSignup } from './signup-fixture';

/**
 * A confirmation link names the signup it confirms (a nonce stored on the
 * pending subscriber, replaced at each signup), works once, and is refused after an unsubscribe.
 * The scenario of the issue is played end to end through the handlers, on the emulator.
 */
const T0 = new Date('2026-11-30T06:00:00Z');
const at = (minutes: number) => minutesAfter(T0, minutes);
const ADDRESS = 'ada@example.com';
const UID = subscriberId(ADDRESS);
const SUPERSEDED = 'A newer signup replaced this link';
const USED = 'This link was already used';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const user = async () => (await h.db.collection('users').doc(UID).get()).data();
const signUp = (keywords: string, now: Date) => postSignup(h, { email: ADDRESS, keywords, mode: 'instant' }, { now });
const confirmLinks = async () =>
  (await h.inbox(ADDRESS))
    .filter((m) => m.subject === 'Confirm your Scout subscription')
    .map((m) => linkIn(m.text, h.config.APP_URL, '/confirm'));
const unsubscribeLink = (issuedAt: Date) => unsubscribeUrl({ appUrl: h.config.APP_URL, uid: UID, secret: h.config.LINK_SECRET, issuedAt });

describe('a confirmation link confirms only the signup whose email carried it', () => {
  it("the issue's scenario: subscribe, confirm, unsubscribe, a stranger re-signs the address up; the old link is refused and the stranger's keywords are never activated by it", async () => {
    expect((await signUp('react', at(0))).status).toBe(202);
    const [adaLink] = await confirmLinks();
    expect((await callConfirm(h, 'POST', adaLink, at(5))).html).toContain('You are subscribed');
    expect(await user()).toMatchObject({ status: 'active', keywords: ['react'] });

    expect((await callUnsubscribe(h, unsubscribeLink(at(5)), at(30))).status).toBe(200);
    expect(await user()).toMatchObject({ status: 'unsubscribed' });

    // Someone else signs the address up with their own keywords; Ada's link is still inside its two days.
    expect((await signUp('cobol', at(60))).status).toBe(202);
    expect(await user()).toMatchObject({ status: 'pending', keywords: ['cobol'] });

    for (const method of ['GET', 'POST'] as const) {
      const page = await callConfirm(h, method, adaLink, at(61));
      expect(page.status, method).toBe(409);
      expect(page.html, method).toContain(SUPERSEDED);
      expect(page.html, method).not.toContain('<form');
      expect(page.html, method).not.toContain('/preferences?token=');
    }
    expect(await user()).toMatchObject({ status: 'pending', keywords: ['cobol'], confirmedAt: null });

    // The new email's link (it went to the address, so only its owner holds it) works, once.
    const links = await confirmLinks();
    expect(links).toHaveLength(2);
    const newLink = links[1];
    expect(newLink).not.toBe(adaLink);
    const first = await callConfirm(h, 'POST', newLink, at(62));
    expect(first.status).toBe(200);
    expect(first.html).toContain('You are subscribed');
    const confirmed = await user();
    expect(confirmed).toMatchObject({ status: 'active', keywords: ['cobol'] });
    expect(confirmed!.confirmedAt.toDate()).toEqual(at(62));

    for (const link of [newLink, adaLink]) {
      for (const method of ['POST', 'GET'] as const) {
        const again = await callConfirm(h, method, link, at(63));
        expect(again.status, method).toBe(409);
        expect(again.html, method).toContain(USED);
        // No way to confirm again; the one form asks Scout to email the preferences link (used-confirm-link.emulator.test.ts), never shows it.
        expect(again.html.match(/<form/g), method).toHaveLength(1);
        expect(again.html, method).toContain('name="action" value="email-preferences"');
        expect(again.html, method).not.toContain('/preferences?token=');
      }
    }
    expect((await user())!.confirmedAt.toDate()).toEqual(at(62));
  });

  it('also when the re-signup comes inside the address limit, so no new email is sent: the old link is refused', async () => {
    await signUp('react', at(0));
    const [adaLink] = await confirmLinks();
    await callConfirm(h, 'POST', adaLink, at(1));
    await callUnsubscribe(h, unsubscribeLink(at(1)), at(2));
    await signUp('cobol', at(3));
    expect(await confirmLinks()).toHaveLength(1);

    const page = await callConfirm(h, 'POST', adaLink, at(4));
    expect(page.status).toBe(409);
    expect(page.html).toContain(SUPERSEDED);
    expect(await user()).toMatchObject({ status: 'pending', keywords: ['cobol'] });
  });

  it('a pending subscriber signing up again gets a new nonce: only the newest link confirms, and only what it was sent for', async () => {
    await signUp('react', at(0));
    const firstNonce = (await user())!.signupNonce;
    expect(firstNonce).toMatch(/^[A-Za-z0-9_-]{22,}$/);

    // Inside the address limit: the preferences change, no email goes out, and the first link dies with its signup.
    await signUp('vue', at(3));
    const secondNonce = (await user())!.signupNonce;
    expect(secondNonce).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(secondNonce).not.toBe(firstNonce);
    const [first] = await confirmLinks();
    const refused = await callConfirm(h, 'POST', first, at(4));
    expect(refused.status).toBe(409);
    expect(refused.html).toContain(SUPERSEDED);
    expect(await user()).toMatchObject({ status: 'pending', keywords: ['vue'] });

    await signUp('svelte', at(11));
    const [, second] = await confirmLinks();
    expect(second).toBeDefined();
    expect((await callConfirm(h, 'GET', first, at(12))).html).toContain(SUPERSEDED);
    const ask = await callConfirm(h, 'GET', second, at(12));
    expect(ask.html).toContain('svelte');
    expect(ask.html.match(/<button/g)).toHaveLength(1);
    expect((await callConfirm(h, 'POST', second, at(12))).status).toBe(200);
    const confirmed = await user();
    expect(confirmed).toMatchObject({ status: 'active', keywords: ['svelte'] });
    // Used up: the nonce is gone with the pending state.
    expect(confirmed).not.toHaveProperty('signupNonce');
  });

  it('a link is refused once its pending subscriber has unsubscribed', async () => {
    await signUp('react', at(0));
    const [link] = await confirmLinks();
    expect((await callUnsubscribe(h, unsubscribeLink(at(0)), at(1))).status).toBe(200);
    for (const method of ['GET', 'POST'] as const) {
      const page = await callConfirm(h, method, link, at(2));
      expect(page.status).toBe(409);
      expect(page.html).toContain('This address has unsubscribed');
    }
    expect(await user()).toMatchObject({ status: 'unsubscribed' });
  });

  it('a link made before nonces (no nonce in its signed claims) is refused with a page that says to sign up again', async () => {
    await signUp('react', at(0));
    const old = signLinkToken({ uid: UID, purpose: 'confirm', exp: at(24 * 60).getTime() / 1000 }, h.config.LINK_SECRET);
    for (const method of ['GET', 'POST'] as const) {
      const page = await callConfirm(h, method, `${h.config.APP_URL}/confirm?token=${old}`, at(1));
      expect(page.status, method).toBe(400);
      expect(page.html, method).toContain('This confirmation link is out of date');
      expect(page.html, method).toContain('<a href="/#signup">Sign up again</a>');
      expect(page.html, method).not.toContain('<form');
    }
    expect(await user()).toMatchObject({ status: 'pending' });
  });
});

describe('a confirmation link works once, also when posted many times at once', () => {
  it('8 concurrent POSTs of one valid link: exactly one activation, seven refusals, no other email', async () => {
    await signUp('react', at(0));
    const [link] = await confirmLinks();
    const logs: string[] = [];
    const log = (event: string) => void logs.push(event);

    const pages = await Promise.all(Array.from({ length: 8 }, () => callConfirm(h, 'POST', link, at(5), log)));
    const subscribed = pages.filter((p) => p.status === 200);
    expect(subscribed).toHaveLength(1);
    expect(subscribed[0].html).toContain('You are subscribed');
    const refused = pages.filter((p) => p.status !== 200);
    expect(refused.map((p) => p.status)).toEqual(Array(7).fill(409));
    for (const page of refused) expect(page.html).toContain(USED);

    expect(logs.filter((event) => event === 'subscriber.confirmed')).toHaveLength(1);
    expect(await user()).toMatchObject({ status: 'active', keywords: ['react'] });
    expect((await h.inbox(ADDRESS)).map((m) => m.subject)).toEqual(['Confirm your Scout subscription']);
  });
});

describe('opt-outs win over the operator too', () => {
  it('an import never activates an address that unsubscribed, even while a stranger’s re-signup of it is pending', async () => {
    expect((await signUp('react', at(0))).status).toBe(202);
    const [adaLink] = await confirmLinks();
    await callConfirm(h, 'POST', adaLink, at(5));
    await callUnsubscribe(h, unsubscribeLink(at(5)), at(30));
    expect((await signUp('cobol', at(60))).status).toBe(202);
    expect(await user()).toMatchObject({ status: 'pending', keywords: ['cobol'] });

    const added = await addActiveSubscriber(h.db, { email: ADDRESS, keywords: ['vue'], mode: 'instant' }, at(90));
    expect(added.outcome).toBe('kept-unsubscribed');
    expect(await user()).toMatchObject({ status: 'pending', keywords: ['cobol'], confirmedAt: null });
  });
});

describe('a confirmation waiting in the outbox', () => {
  it('is skipped once a later signup replaced its signup, so the address gets only the link that works', async () => {
    await h.setFaults({ quotaExceeded: 'daily' });
    expect((await signUp('react', at(0))).status).toBe(202);
    expect((await signUp('cobol', at(20))).status).toBe(202);
    await h.setFaults({});
    expect(await h.inbox(ADDRESS)).toHaveLength(0);

    await h.cron({ now: at(30).toISOString() });
    const links = await confirmLinks();
    expect(links).toHaveLength(1);
    const stale = (await h.db.collection('emails').where('uid', '==', UID).get()).docs.filter((d) => d.get('status') === 'skipped');
    expect(stale.map((d) => d.get('lastError'))).toEqual(['signup_superseded']);
    expect((await callConfirm(h, 'POST', links[0], at(31))).html).toContain('You are subscribed');
    expect(await user()).toMatchObject({ status: 'active', keywords: ['cobol'] });
  });
});
