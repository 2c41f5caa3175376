import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleConfirmRequest } from '../../lib/subscriptions/handle-confirm-request';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { unsubscribeUrl } from '../../lib/subscribers/link-token';
import { createHarness, type Harness } from '../support/harness';
import { callConfirm, callUnsubscribe, linkIn, minutesAfter, postSignup, type Answer } from './signup-fixture';

/**
 * A used confirmation link leads to the preferences — by email. Its page offers "Email me a link to
 * my preferences", a POST that mails the manage-subscription email to the subscriber through the
 * signup's limits; the link itself never shows the preferences link, so it is no standing login,
 * and a GET of it (a mail scanner's) changes and sends nothing.
 */
const T0 = new Date('2026-11-30T06:00:00Z');
const at = (minutes: number) => minutesAfter(T0, minutes);
const ADDRESS = 'ada@example.com';
const UID = subscriberId(ADDRESS);
const STATE = ['users', 'emails', 'deliveries', 'rateLimits'];
const MANAGE_SUBJECT = /^Your Scout subscription$/;

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

async function askForPreferences(link: string, now: Date, ip = '203.0.113.9'): Promise<Answer> {
  const request = new Request(link, {
    method: 'POST',
    body: 'action=email-preferences',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
  });
  const response = await handleConfirmRequest(request, { ...h.deps, now });
  return { status: response.status, html: await response.text(), json: null, headers: response.headers };
}

async function signUpAndConfirm(): Promise<string> {
  expect((await postSignup(h, { email: ADDRESS, keywords: 'react', mode: 'daily' }, { now: at(0) })).status).toBe(202);
  const [mail] = await h.inbox(ADDRESS);
  const link = linkIn(mail.text, h.config.APP_URL, '/confirm');
  expect((await callConfirm(h, 'POST', link, at(1))).html).toContain('You are subscribed');
  return link;
}

const manageEmails = async () => (await h.inbox(ADDRESS)).filter((m) => MANAGE_SUBJECT.test(m.subject));

describe('the page of a used confirmation link', () => {
  it('offers to email the preferences link, as a POST form; a GET of it (a mail scanner) changes and sends nothing', async () => {
    const link = await signUpAndConfirm();
    // Past the mailbox's ten-minute window of the confirmation: only the limits decide, not the test's timing.
    const before = await h.dump(STATE);
    const inbox = (await h.inbox(ADDRESS)).length;
    for (let i = 0; i < 3; i++) {
      const page = await callConfirm(h, 'GET', link, at(20 + i));
      expect(page.status).toBe(409);
      expect(page.html).toContain('This link was already used');
      expect(page.html).toContain('<input type="hidden" name="action" value="email-preferences"/>');
      expect(page.html).toContain('Email me a link to my preferences');
      expect(page.html).not.toContain('/preferences?token=');
    }
    expect(await h.dump(STATE)).toEqual(before);
    expect(await h.inbox(ADDRESS)).toHaveLength(inbox);
  });

  it('the POST mails the preferences link to the subscriber, and shows it nowhere', async () => {
    const link = await signUpAndConfirm();
    const page = await askForPreferences(link, at(20));
    expect(page.status).toBe(200);
    expect(page.html).toContain('Check your inbox');
    expect(page.html).not.toContain('/preferences?token=');
    const [mail] = await manageEmails();
    expect(mail).toBeDefined();
    expect(mail.text).toContain(`${h.config.APP_URL}/preferences?token=`);
    expect((await h.db.collection('users').doc(UID).get()).data()).toMatchObject({ status: 'active', manageSeq: 1 });
  });

  it('goes through the mailbox’s allowance: pressed again at once, the page reads the same and no second email goes', async () => {
    const link = await signUpAndConfirm();
    await askForPreferences(link, at(20));
    const again = await askForPreferences(link, at(21));
    expect(again.status).toBe(200);
    expect(again.html).toContain('Check your inbox');
    expect(await manageEmails()).toHaveLength(1);
    // The next window lets one more through.
    await askForPreferences(link, at(35));
    expect(await manageEmails()).toHaveLength(2);
  });

  it('and through the client’s hourly count: a network that keeps asking is told to wait', async () => {
    await h.close();
    // Behind one proxy, so the client's address is believed and counted.
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
    const link = await signUpAndConfirm();
    let last: Answer | null = null;
    for (let i = 0; i < 40 && last?.status !== 429; i++) last = await askForPreferences(link, at(20), '198.51.100.4');
    expect(last!.status).toBe(429);
    expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await manageEmails()).toHaveLength(1);
  });

  it('a link that is not used is no way to an email: unsubscribed, superseded or unconfirmed, nothing is sent', async () => {
    expect((await postSignup(h, { email: ADDRESS, keywords: 'react', mode: 'daily' }, { now: at(0) })).status).toBe(202);
    const [mail] = await h.inbox(ADDRESS);
    const link = linkIn(mail.text, h.config.APP_URL, '/confirm');

    // Not used yet: the page asks to confirm, and nothing changes.
    const before = await h.dump(STATE);
    const pending = await askForPreferences(link, at(20));
    expect(pending.status).toBe(200);
    expect(pending.html).toContain('Confirm my subscription');
    expect((await h.db.collection('users').doc(UID).get()).data()).toMatchObject({ status: 'pending' });
    expect((await h.dump(STATE)).emails).toEqual(before.emails);

    // Confirmed, then unsubscribed: the link names an opt-out, and sends nothing.
    await callConfirm(h, 'POST', link, at(21));
    await callUnsubscribe(
      h,
      unsubscribeUrl({ appUrl: h.config.APP_URL, uid: UID, secret: h.config.LINK_SECRET, issuedAt: at(21) }),
      at(22),
    );
    const gone = await askForPreferences(link, at(40));
    expect(gone.status).toBe(409);
    expect(gone.html).toContain('This address has unsubscribed');
    expect(gone.html).not.toContain('email-preferences');
    expect(await manageEmails()).toHaveLength(0);
  });
});
