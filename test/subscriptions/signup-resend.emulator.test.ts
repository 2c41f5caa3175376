import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleSignupRequest, SIGNUP_ACCEPTED_MESSAGE } from '../../lib/subscriptions/handle-signup-request';
import { RESEND_AFTER_SEC } from '../../lib/subscriptions/signup-received';
import { SIGNUP_LIMITS } from '../../lib/http/rate-limit';
import { confirmEmailKey, manageEmailKey, providerIdempotencyKey } from '../../lib/outbox/outbox-row';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { createHarness, type Harness } from '../support/harness';
import { callConfirm, linkIn, minutesAfter } from './signup-fixture';

/**
 * The page after a signup names the address, offers "Not you? Change it", points at the spam folder
 * and offers "Send it again": a POST of the same signup (`action=resend`), through the same path and
 * its limits, so the database decides what is sent (the mailbox's window and day, the client's hour)
 * and the email is the kind the first one was. The page reads the same whoever the address belongs to.
 */
const NOW = new Date('2026-11-30T06:00:00Z');
const NEW = 'new.person@example.com';
const SUBSCRIBED = 'old.hand@example.com';
const SIGNUP = { keywords: 'react, svelte', excludes: 'php', minHourly: '45', mode: 'daily', timezone: 'Europe/Berlin', weekdays: 'mon' };
const ACCEPTED = { ok: true, message: SIGNUP_ACCEPTED_MESSAGE };
let h: Harness;

beforeEach(async () => {
  h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
});
afterEach(async () => h.close());

type Sent = { status: number; html: string; json: any };

/** A post as the browser sends it: a form body (fields may repeat) or JSON, from one client address. */
async function post(body: URLSearchParams | Record<string, unknown>, options: { now: Date; ip?: string }): Promise<Sent> {
  const form = body instanceof URLSearchParams;
  const response = await handleSignupRequest(
    new Request(`${h.config.APP_URL}/api/signup`, {
      method: 'POST',
      headers: {
        'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
        'x-forwarded-for': options.ip ?? '203.0.113.7',
      },
      body: form ? body.toString() : JSON.stringify(body),
    }),
    { ...h.deps, now: options.now },
  );
  const text = await response.text();
  return { status: response.status, html: text, json: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null };
}

const unescape = (text: string) =>
  text.replaceAll('&quot;', '"').replaceAll('&#x27;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

/** The answer page's own form, as a browser would post it with the button named `action` pressed. */
function pressed(html: string, action: 'resend' | 'change'): URLSearchParams {
  const form = /<form[^>]*class="signup-again"[^>]*>([\s\S]*?)<\/form>/.exec(html)?.[1];
  if (!form) throw new Error('no signup-again form on the page');
  const fields = new URLSearchParams();
  for (const [, name, value] of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g))
    fields.append(name, unescape(value));
  if (!fields.has('email')) throw new Error('no hidden fields found on the page');
  fields.append('action', action);
  return fields;
}

const signupForm = (email: string) => new URLSearchParams({ email, ...SIGNUP });
const confirmRows = async (email: string) =>
  (await h.db.collection('emails').where('uid', '==', subscriberId(email)).get()).docs.map((d) => ({ id: d.id, kind: d.get('kind') }));

describe('"Send it again"', () => {
  it('waits the mailbox window: RESEND_AFTER_SEC is SIGNUP_LIMITS.addressWindowMs', () => {
    expect(RESEND_AFTER_SEC * 1000).toBe(SIGNUP_LIMITS.addressWindowMs);
  });

  it('from the page: a second confirmation of the same kind once the window has passed, none sooner; the newest link confirms, with what was typed', async () => {
    const first = await post(signupForm(NEW), { now: NOW });
    expect(first.status).toBe(202);
    const uid = subscriberId(NEW);

    // Pressed at once: the same answer, nothing sent (the mailbox's window is taken).
    const soon = await post(pressed(first.html, 'resend'), { now: minutesAfter(NOW, 1) });
    expect(soon.status).toBe(202);
    expect(soon.html).toContain('<h1 tabindex="-1">Sent again</h1>');
    expect(await h.inbox(NEW)).toHaveLength(1);

    const later = await post(pressed(soon.html, 'resend'), { now: new Date(NOW.getTime() + RESEND_AFTER_SEC * 1000) });
    expect(later.status).toBe(202);
    const inbox = await h.inbox(NEW);
    expect(inbox.map((m) => m.idempotencyKey)).toEqual([confirmEmailKey(uid, 1), confirmEmailKey(uid, 2)].map(providerIdempotencyKey));
    expect(inbox[1].subject).toBe(inbox[0].subject);
    expect(await confirmRows(NEW)).toEqual([
      { id: confirmEmailKey(uid, 1), kind: 'confirm' },
      { id: confirmEmailKey(uid, 2), kind: 'confirm' },
    ]);

    const confirmed = await callConfirm(h, 'POST', linkIn(inbox[1].text, h.config.APP_URL, '/confirm'), minutesAfter(NOW, 12));
    expect(confirmed.status).toBe(200);
    // The resend carried the whole signup, as typed: nothing was lost on the way round.
    expect((await h.db.collection('users').doc(uid).get()).data()).toMatchObject({
      status: 'active',
      keywords: ['react', 'svelte'],
      excludes: ['php'],
      minPay: { hourly: { amount: 45, currency: 'USD' } },
      mode: 'daily',
      timezone: 'Europe/Berlin',
      weekdays: ['mon'],
    });
  });

  it('pressed again and again, an hour apart or all at once, it stops at the mailbox’s daily allowance; every answer the same', async () => {
    const resend = { email: NEW, confirmedEmail: NEW, ...SIGNUP, action: 'resend' };
    expect((await post({ email: NEW, ...SIGNUP }, { now: NOW })).json).toEqual(ACCEPTED);
    const answers: unknown[] = [];
    // A burst in one window, from 20 client addresses (so only the mailbox's limits apply): one email.
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(resend, { now: minutesAfter(NOW, 10), ip: `192.0.2.${i + 1}` })),
    );
    answers.push(...burst.map((a) => a.json));
    expect(await h.inbox(NEW)).toHaveLength(2);
    // Then one press per window, through the day's allowance and past it.
    for (let i = 2; i <= 9; i++) answers.push((await post(resend, { now: minutesAfter(NOW, i * 10), ip: `198.51.100.${i}` })).json);
    expect(answers).toEqual(Array(28).fill(ACCEPTED));
    expect(await h.inbox(NEW)).toHaveLength(SIGNUP_LIMITS.addressPerDay);
    // Held back, not queued: no row left for a later run to send.
    expect((await confirmRows(NEW)).map((row) => row.kind)).toEqual(Array(SIGNUP_LIMITS.addressPerDay).fill('confirm'));
  });

  it('counts against the client’s hour like any signup: the 21st post from one address is refused with 429', async () => {
    const resend = { email: NEW, confirmedEmail: NEW, ...SIGNUP, action: 'resend' };
    const statuses = [];
    for (let i = 0; i < SIGNUP_LIMITS.clientPerWindow + 1; i++) statuses.push((await post(resend, { now: minutesAfter(NOW, i) })).status);
    expect(statuses.slice(0, SIGNUP_LIMITS.clientPerWindow)).toEqual(Array(SIGNUP_LIMITS.clientPerWindow).fill(202));
    expect(statuses.at(-1)).toBe(429);
  });

  it('for someone already subscribed it resends what they got first: a link to their preferences, which stay as they were', async () => {
    await h.subscribe({ email: SUBSCRIBED, keywords: ['go'] });
    const uid = subscriberId(SUBSCRIBED);
    const first = await post(signupForm(SUBSCRIBED), { now: NOW });
    await post(pressed(first.html, 'resend'), { now: new Date(NOW.getTime() + RESEND_AFTER_SEC * 1000) });
    const inbox = await h.inbox(SUBSCRIBED);
    expect(inbox.map((m) => m.idempotencyKey)).toEqual([manageEmailKey(uid, 1), manageEmailKey(uid, 2)].map(providerIdempotencyKey));
    expect(inbox[1].subject).toBe(inbox[0].subject);
    expect((await h.db.collection('users').doc(uid).get()).data()).toMatchObject({ status: 'active', keywords: ['go'] });
  });
});

describe('the answer is the same for a subscribed and a new address', () => {
  /** The page with the address typed in it replaced: what is left must not depend on who the address belongs to. */
  const withoutAddress = (html: string, email: string) => html.replaceAll(email, 'ADDRESS');

  it('after signing up and after "Send it again", as a page and as JSON', async () => {
    await h.subscribe({ email: SUBSCRIBED, keywords: ['go'] });
    const page = { new: await post(signupForm(NEW), { now: NOW }), subscribed: await post(signupForm(SUBSCRIBED), { now: NOW }) };
    expect(page.new.status).toBe(202);
    expect(page.subscribed.status).toBe(202);
    expect(withoutAddress(page.subscribed.html, SUBSCRIBED)).toBe(withoutAddress(page.new.html, NEW));

    const later = new Date(NOW.getTime() + RESEND_AFTER_SEC * 1000);
    const resent = {
      new: await post(pressed(page.new.html, 'resend'), { now: later }),
      subscribed: await post(pressed(page.subscribed.html, 'resend'), { now: later }),
    };
    expect(resent.subscribed.status).toBe(resent.new.status);
    expect(withoutAddress(resent.subscribed.html, SUBSCRIBED)).toBe(withoutAddress(resent.new.html, NEW));

    // Held back by the window (a press at once) reads the same as sent.
    const held = await post(pressed(resent.new.html, 'resend'), { now: minutesAfter(later, 1) });
    expect(withoutAddress(held.html, NEW)).toBe(withoutAddress(resent.new.html, NEW));

    const json = (email: string, now: Date) => post({ email, confirmedEmail: email, ...SIGNUP, action: 'resend' }, { now });
    const twoWindows = new Date(later.getTime() + RESEND_AFTER_SEC * 1000);
    expect([(await json(NEW, twoWindows)).json, (await json(SUBSCRIBED, twoWindows)).json]).toEqual([ACCEPTED, ACCEPTED]);
  });
});

describe('"Not you? Change it" without a script', () => {
  it('brings the form back as it was sent, the address field focused; nothing is written or sent', async () => {
    const first = await post(signupForm(NEW), { now: NOW });
    const before = await h.dump(['users', 'emails', 'rateLimits']);
    const change = await post(pressed(first.html, 'change'), { now: minutesAfter(NOW, 1) });
    expect(change.status).toBe(200);
    expect(change.html).toContain('<h1>Change your email address</h1>');
    expect(change.html).toMatch(/<input id="signup-email"(?=[^>]*autofocus="")[^>]*value="new.person@example.com"/);
    expect(change.html).toContain('>react, svelte</textarea>');
    expect(change.html).toMatch(/<input[^>]*name="minHourly"[^>]*value="45"/);
    expect(change.html).toMatch(/<input[^>]*id="signup-mode-daily"[^>]*checked=""/);
    expect(change.html).toMatch(/<option value="Europe\/Berlin" selected="">/);
    expect(await h.dump(['users', 'emails', 'rateLimits'])).toEqual(before);
    expect(await h.inbox()).toHaveLength(1);
  });

  it('an action Scout does not know is refused naming it, and nothing is written', async () => {
    const sent = await post({ email: NEW, ...SIGNUP, action: 'delete' }, { now: NOW });
    expect(sent.status).toBe(400);
    expect(sent.json.fields).toEqual({ body: 'action must be signup, resend or change' });
    expect(await h.dump(['users', 'emails'])).toEqual({ users: {}, emails: {} });
  });
});
