import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deliveriesCollection } from '../../lib/ledger/delivery';
import { handleConfirmRequest } from '../../lib/subscriptions/handle-confirm-request';
import { handleSignupRequest, MAX_SIGNUP_BODY_BYTES, SIGNUP_ACCEPTED_MESSAGE } from '../../lib/subscriptions/handle-signup-request';
import { confirmUrl, preferencesUrl, signLinkToken, unsubscribeUrl } from '../../lib/subscribers/link-token';
import { SIGNUP_LIMITS } from '../../lib/http/rate-limit';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { unsubscribeSubscriber } from '../../lib/subscriptions/unsubscribe';
import { providerIdempotencyKey } from '../../lib/outbox/outbox-row';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const NOW = new Date('2026-11-30T06:00:00Z');
const minutesLater = (minutes: number, from = NOW) => new Date(from.getTime() + minutes * 60_000);
const ADA = 'ada@example.com';
const ADA_ID = subscriberId(ADA);
let h: Harness;

beforeEach(async () => {
  // The post helper's X-Forwarded-For is a client's address, then the load balancer's: two proxies.
  h = await createHarness({ TRUSTED_PROXY_HOPS: '2' });
});
afterEach(async () => h.close());

type Sent = { status: number; type: string | null; json: any; html: string; headers: Headers };

async function post(
  body: string | Record<string, unknown>,
  options: { type?: string; ip?: string; now?: Date; headers?: Record<string, string> } = {},
): Promise<Sent> {
  const request = new Request('http://localhost:3000/api/signup', {
    method: 'POST',
    headers: {
      'content-type': options.type ?? 'application/json',
      'x-forwarded-for': `${options.ip ?? '203.0.113.7'}, 10.0.0.1`,
      ...options.headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const response = await handleSignupRequest(request, { ...h.deps, now: options.now ?? NOW });
  const text = await response.text();
  const type = response.headers.get('content-type');
  return { status: response.status, type, json: type?.includes('json') ? JSON.parse(text) : null, html: text, headers: response.headers };
}

const postForm = (fields: Record<string, string>, options: { ip?: string; now?: Date } = {}) =>
  post(new URLSearchParams(fields).toString(), { ...options, type: 'application/x-www-form-urlencoded' });

async function confirmCall(method: 'GET' | 'POST', url: string, now = NOW) {
  const init: RequestInit =
    method === 'POST' ? { method, body: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } } : { method };
  const response = await handleConfirmRequest(new Request(url, init), { ...h.deps, now });
  return { status: response.status, html: await response.text() };
}

const userDoc = async (uid = ADA_ID) => (await h.db.collection('users').doc(uid).get()).data();
const emailRow = async (key: string) => (await h.db.collection('emails').doc(key).get()).data();
const linkIn = (text: string | null, path: string) => {
  const match = text?.match(new RegExp(`http://localhost:3000${path}\\?token=[\\w.-]+`));
  if (!match) throw new Error(`no ${path} link in:\n${text}`);
  return match[0];
};
const ACCEPTED = { ok: true, message: SIGNUP_ACCEPTED_MESSAGE };
/** The opening tag of the element with this id (or the first of this name), whatever order its attributes come in. */
const openingTag = (page: string, name: string, id?: string) => {
  const match = page.match(new RegExp(id ? `<${name}\\b[^>]*\\bid="${id}"[^>]*>` : `<${name}\\b[^>]*>`));
  if (!match) throw new Error(`no <${name}${id ? ` id="${id}"` : ''}> in the page`);
  return match[0];
};

describe('POST /api/signup (JSON) and the double opt-in', () => {
  it('takes the digest schedule as it arrives (timezone, digestHour, weekdays, weeklyDay) and a weekly cadence; a bad zone is a 400 naming it', async () => {
    const sent = await post({
      email: 'ada@example.com',
      keywords: 'react',
      mode: 'weekly',
      timezone: 'America/New_York',
      digestHour: 9,
      weekdays: ['mon', 'fri'],
      weeklyDay: 'fri',
    });
    expect(sent.status).toBe(202);
    expect(await userDoc()).toMatchObject({
      mode: 'weekly',
      timezone: 'America/New_York',
      digestHour: 9,
      weekdays: ['mon', 'fri'],
      weeklyDay: 'fri',
    });
    const bad = await post({ email: 'bo@example.com', keywords: 'react', mode: 'daily', timezone: 'Mars/Olympus', digestHour: 25 });
    expect(bad.status).toBe(400);
    expect(bad.json.fields).toEqual({
      timezone: 'must be a time zone name, like Europe/Berlin',
      digestHour: 'must be an hour from 0 to 23',
    });
  });

  it('a signup that says nothing of a schedule gets 08:00 UTC every day, what every subscriber had before', async () => {
    expect((await post({ email: 'ada@example.com', keywords: 'react', mode: 'daily' })).status).toBe(202);
    expect(await userDoc()).toMatchObject({
      timezone: 'UTC',
      digestHour: null,
      weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
    });
  });

  it('a new address: a pending subscriber and one confirmation email whose link confirms (GET changes nothing, POST does)', async () => {
    const sent = await post({
      email: ' Ada@Example.com ',
      keywords: 'React, next.js',
      excludes: ['WordPress'],
      minFixed: '1,000',
      minYearly: '€90k',
      mode: 'daily',
    });
    expect(sent.status).toBe(202);
    expect(sent.json).toEqual(ACCEPTED);
    expect(sent.headers.get('cache-control')).toBe('no-store');

    const user = await userDoc();
    expect(user).toMatchObject({
      email: ADA,
      status: 'pending',
      keywords: ['react', 'next.js'],
      excludes: ['wordpress'],
      minPay: { fixed: { amount: 1000, currency: 'USD' }, hourly: null, yearly: { amount: 90_000, currency: 'EUR' } },
      mode: 'daily',
      confirmedAt: null,
      confirmSeq: 1,
    });
    expect(user!.createdAt.toDate()).toEqual(NOW);

    const key = `confirm_${ADA_ID}_1`;
    expect(await emailRow(key)).toMatchObject({ kind: 'confirm', uid: ADA_ID, status: 'sent', deliveryIds: [] });
    const inbox = await h.inbox();
    expect(inbox).toHaveLength(1);
    const [mail] = inbox;
    expect(mail).toMatchObject({ to: [ADA], subject: 'Confirm your Scout subscription', idempotencyKey: providerIdempotencyKey(key) });
    // Not subscribed yet: nothing to unsubscribe from, and the sender's words are not echoed.
    expect(mail.headers['List-Unsubscribe']).toBeUndefined();
    expect(mail.text).not.toContain('react');
    expect(mail.html).toContain('Confirm my subscription');
    const link = linkIn(mail.text, '/confirm');
    expect(mail.html).toContain(link);

    const before = await h.dump(['users', 'emails', 'deliveries']);
    const page = await confirmCall('GET', link, minutesLater(5));
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<form action="?token=${new URL(link).searchParams.get('token')}" method="post">`);
    expect(page.html.match(/<button/g)).toHaveLength(1);
    expect(page.html).toContain('a***@example.com');
    expect(page.html).toContain('react, next.js');
    expect(page.html).toContain('wordpress');
    expect(await h.dump(['users', 'emails', 'deliveries'])).toEqual(before);

    const confirmedAt = minutesLater(6);
    const done = await confirmCall('POST', link, confirmedAt);
    expect(done.status).toBe(200);
    expect(done.html).toContain('You are subscribed');
    const preferencesLink = preferencesUrl({ appUrl: h.config.APP_URL, uid: ADA_ID, secret: h.config.LINK_SECRET, issuedAt: confirmedAt });
    expect(done.html).toContain(`href="${preferencesLink}"`);
    const confirmed = await userDoc();
    expect(confirmed).toMatchObject({ status: 'active', keywords: ['react', 'next.js'] });
    expect(confirmed!.confirmedAt.toDate()).toEqual(confirmedAt);

    // A link works once: used again, it changes nothing and opens nothing (no preferences link).
    const again = await confirmCall('POST', link, minutesLater(7));
    expect(again.status).toBe(409);
    expect(again.html).toContain('This link was already used');
    expect(again.html).not.toContain('/preferences?token=');
    expect((await userDoc())!.confirmedAt.toDate()).toEqual(confirmedAt);
    expect((await confirmCall('GET', link, minutesLater(8))).html).toContain('This link was already used');
  });

  it('10 parallel posts of one address in different cases and spacing: one subscriber, at most one confirmation', async () => {
    const spellings = [
      ADA,
      'ADA@EXAMPLE.COM',
      ' Ada@Example.com',
      'ada@EXAMPLE.com ',
      '\tada@example.com',
      'Ada@example.COM',
      'aDa@example.com',
    ];
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post({ email: spellings[i % spellings.length], keywords: ['react'], mode: 'instant' }, { ip: `198.51.100.${i}` }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(202));
    expect(new Set(results.map((r) => JSON.stringify(r.json)))).toEqual(new Set([JSON.stringify(ACCEPTED)]));

    const users = await h.db.collection('users').get();
    expect(users.docs.map((d) => d.id)).toEqual([ADA_ID]);
    expect(users.docs[0].data()).toMatchObject({ email: ADA, status: 'pending', keywords: ['react'] });
    // At most one, and here exactly one: the request that won the address's window sent it.
    const emails = await h.db.collection('emails').get();
    expect(emails.docs.map((d) => d.id)).toEqual([`confirm_${ADA_ID}_1`]);
    expect((await h.inbox()).map((m) => m.idempotencyKey)).toEqual([providerIdempotencyKey(`confirm_${ADA_ID}_1`)]);
  });

  it('a subscriber deleted by hand and signing up again: the email key already used is skipped, not reused', async () => {
    await post({ email: ADA, keywords: 'react', mode: 'instant' });
    await h.db.collection('users').doc(ADA_ID).delete();
    expect((await post({ email: ADA, keywords: 'vue', mode: 'instant' }, { now: minutesLater(10) })).status).toBe(202);
    expect(await userDoc()).toMatchObject({ status: 'pending', keywords: ['vue'], confirmSeq: 2 });
    expect((await h.inbox()).map((m) => m.idempotencyKey)).toEqual(
      [`confirm_${ADA_ID}_1`, `confirm_${ADA_ID}_2`].map(providerIdempotencyKey),
    );
  });

  it('an active subscriber gets a link to their preferences, and their preferences stay as they were', async () => {
    await h.subscribe({ email: ADA, keywords: ['react'], excludes: ['php'], minBudget: 500, mode: 'instant' });
    const before = await userDoc();

    const sent = await post({ email: 'ADA@example.com', keywords: 'cobol', mode: 'daily' });
    expect(sent.status).toBe(202);
    expect(sent.json).toEqual(ACCEPTED);

    const after = await userDoc();
    expect(after).toMatchObject({
      status: 'active',
      keywords: ['react'],
      excludes: ['php'],
      minPay: { fixed: { amount: 500, currency: 'USD' }, hourly: null, yearly: null },
      mode: 'instant',
    });
    expect(after!.updatedAt).toEqual(before!.updatedAt);
    expect(after!.manageSeq).toBe(1);

    const [mail, ...rest] = await h.inbox();
    expect(rest).toHaveLength(0);
    expect(mail).toMatchObject({
      to: [ADA],
      subject: 'Your Scout subscription',
      idempotencyKey: providerIdempotencyKey(`manage_${ADA_ID}_1`),
    });
    expect(linkIn(mail.text, '/preferences')).toBe(
      preferencesUrl({ appUrl: h.config.APP_URL, uid: ADA_ID, secret: h.config.LINK_SECRET, issuedAt: NOW }),
    );
    expect(mail.headers['List-Unsubscribe']).toBe(
      `<${unsubscribeUrl({ appUrl: h.config.APP_URL, uid: ADA_ID, secret: h.config.LINK_SECRET, issuedAt: NOW })}>`,
    );
    expect(mail.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(mail.text).not.toContain('cobol');
    expect(await emailRow(`manage_${ADA_ID}_1`)).toMatchObject({ kind: 'manage', status: 'sent' });
  });

  it('a paused subscriber also gets the manage link and stays paused', async () => {
    await h.subscribe({ email: ADA, keywords: ['react'] });
    await h.db.collection('users').doc(ADA_ID).update({ status: 'paused' });
    expect((await post({ email: ADA, keywords: 'cobol', mode: 'instant' })).status).toBe(202);
    expect(await userDoc()).toMatchObject({ status: 'paused', keywords: ['react'] });
    const [mail] = await h.inbox();
    expect(mail.subject).toBe('Your Scout subscription');
    expect(mail.text).toContain('paused');
  });

  it('an unsubscribed address is pending again with the new preferences, and must confirm again', async () => {
    await h.subscribe({ email: ADA, keywords: ['react'] });
    const token = new URL(
      unsubscribeUrl({ appUrl: h.config.APP_URL, uid: ADA_ID, secret: h.config.LINK_SECRET, issuedAt: NOW }),
    ).searchParams.get('token');
    await unsubscribeSubscriber(h.db, { token, secret: h.config.LINK_SECRET, now: NOW });

    const later = minutesLater(60);
    expect((await post({ email: ADA, keywords: 'vue, svelte', mode: 'daily' }, { now: later })).json).toEqual(ACCEPTED);
    expect(await userDoc()).toMatchObject({ status: 'pending', keywords: ['vue', 'svelte'], mode: 'daily', confirmedAt: null });

    const [mail] = await h.inbox();
    expect(mail).toMatchObject({
      subject: 'Confirm your Scout subscription',
      idempotencyKey: providerIdempotencyKey(`confirm_${ADA_ID}_1`),
    });
    expect((await confirmCall('POST', linkIn(mail.text, '/confirm'), later)).status).toBe(200);
    expect(await userDoc()).toMatchObject({ status: 'active', keywords: ['vue', 'svelte'] });
  });

  it('a pending subscriber who signs up again gets the new preferences and, past the 10-minute limit, a new confirmation', async () => {
    await post({ email: ADA, keywords: 'react', mode: 'instant' });
    await post({ email: ADA, keywords: 'vue', mode: 'instant' }, { now: minutesLater(3) });
    expect(await userDoc()).toMatchObject({ status: 'pending', keywords: ['vue'], confirmSeq: 1 });
    expect(await h.inbox()).toHaveLength(1);

    await post({ email: ADA, keywords: 'svelte', mode: 'instant' }, { now: minutesLater(11) });
    expect(await userDoc()).toMatchObject({ status: 'pending', keywords: ['svelte'], confirmSeq: 2 });
    const inbox = await h.inbox();
    expect(inbox.map((m) => m.idempotencyKey)).toEqual([`confirm_${ADA_ID}_1`, `confirm_${ADA_ID}_2`].map(providerIdempotencyKey));

    // Only the newest link confirms: the first one named a signup that has been replaced.
    expect((await confirmCall('POST', linkIn(inbox[0].text, '/confirm'), minutesLater(12))).status).toBe(409);
    expect(await userDoc()).toMatchObject({ status: 'pending', keywords: ['svelte'] });
    expect((await confirmCall('POST', linkIn(inbox[1].text, '/confirm'), minutesLater(12))).status).toBe(200);
    expect(await userDoc()).toMatchObject({ status: 'active', keywords: ['svelte'] });
  });

  it('an address gets at most one email per 10 minutes and 5 a day, and the answer never changes', async () => {
    const answers: unknown[] = [];
    for (let i = 0; i < 8; i++)
      answers.push((await post({ email: ADA, keywords: 'react', mode: 'instant' }, { now: minutesLater(i * 10) })).json);
    answers.push((await post({ email: ADA, keywords: 'react', mode: 'instant' }, { now: minutesLater(75) })).json);
    expect(answers).toEqual(Array(9).fill(ACCEPTED));
    expect(await h.inbox()).toHaveLength(SIGNUP_LIMITS.addressPerDay);

    // A new UTC day, a new allowance.
    await post({ email: ADA, keywords: 'react', mode: 'instant' }, { now: new Date('2026-12-01T00:05:00Z') });
    expect(await h.inbox()).toHaveLength(SIGNUP_LIMITS.addressPerDay + 1);
  });

  it('the answer is the same for a new, pending, active, unsubscribed and rate-limited address', async () => {
    await h.subscribe({ email: 'active@example.com', keywords: ['react'] });
    await h.subscribe({ email: 'gone@example.com', keywords: ['react'] });
    await h.db.collection('users').doc(subscriberId('gone@example.com')).update({ status: 'unsubscribed' });
    const answers = [];
    for (const email of ['new@example.com', 'new@example.com', 'active@example.com', 'gone@example.com', 'active@example.com']) {
      const sent = await post({ email, keywords: 'vue', mode: 'instant' });
      answers.push({ status: sent.status, body: sent.json });
    }
    expect(answers).toEqual(Array(5).fill({ status: 202, body: ACCEPTED }));
  });

  it('answers 400 with field errors for invalid JSON and invalid fields, and writes nothing', async () => {
    const bad = await post({ email: 'not-an-email', keywords: [], minBudget: -3, mode: 'hourly' });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({
      error: 'invalid signup',
      fields: {
        email: 'must be an email address',
        keywords: 'enter at least one keyword',
        minBudget: 'must be 0 or more',
        mode: 'choose instant, daily, weekly or feed',
      },
    });
    const notJson = await post('{"email": "ada@example.com",');
    expect(notJson.status).toBe(400);
    expect(notJson.json).toEqual({ error: 'invalid signup', fields: { body: 'the request body is not valid JSON' } });
    expect((await post('[]')).json.fields).toHaveProperty('body');
    expect(await h.dump(['users', 'emails', 'rateLimits'])).toEqual({ users: {}, emails: {}, rateLimits: {} });
  });

  it('keywords and excludes no posting word can match (markup, control and zero-width characters, punctuation only): 400 naming the field, nothing written, no email', async () => {
    const hostile = [
      { keywords: ['react', '<script>alert(1)</script>'], field: 'keywords', shown: '"<" is not allowed' },
      { keywords: 'react\n<img src=x onerror=alert(1)>', field: 'keywords', shown: '"<" is not allowed' },
      { keywords: 're\u200bact', field: 'keywords', shown: 'U+200B, an invisible character, is not allowed' },
      { keywords: 'react', excludes: 'php\u0007', field: 'excludes', shown: 'U+0007, a control character, is not allowed' },
    ];
    for (const { field, shown, ...fields } of hostile) {
      const sent = await post({ email: ADA, mode: 'instant', ...fields });
      expect(sent.status).toBe(400);
      expect(sent.json).toEqual({
        error: 'invalid signup',
        fields: { [field]: `each ${field.slice(0, -1)} may use only letters, digits, spaces and + # . - / & ' (${shown})` },
      });
    }
    const onlyPunctuation = await post({ email: ADA, mode: 'instant', keywords: 'c++, ++' });
    expect(onlyPunctuation.json.fields).toEqual({
      keywords: 'each keyword needs a letter or digit: "++" can never match a posting\'s words',
    });
    expect(await h.dump(['users', 'emails', 'rateLimits'])).toEqual({ users: {}, emails: {}, rateLimits: {} });
    expect(await h.inbox()).toHaveLength(0);

    // Words in any script and the punctuation of real skills are what people type: accepted as typed.
    const words = ['разработчик', '開発', 'हिन्दी', 'c++', 'c#', 'node.js', 'ui/ux', 'r&d', "o'reilly"];
    expect((await post({ email: ADA, mode: 'instant', keywords: words })).status).toBe(202);
    expect(await userDoc()).toMatchObject({ keywords: words });
  });

  it('a signup without a mode is refused with 400 naming mode, not quietly made instant: nothing written, no email', async () => {
    for (const body of [
      { email: ADA, keywords: 'react' },
      { email: ADA, keywords: 'react', mode: '' },
    ]) {
      const sent = await post(body);
      expect(sent.status).toBe(400);
      expect(sent.json).toEqual({ error: 'invalid signup', fields: { mode: 'choose instant, daily, weekly or feed' } });
    }
    expect(await h.dump(['users', 'emails', 'rateLimits'])).toEqual({ users: {}, emails: {}, rateLimits: {} });
    expect(await h.inbox()).toHaveLength(0);
  });
});

describe('POST /api/signup as a form (no JavaScript)', () => {
  it('on success shows a "check your inbox" page naming the address, with "change it", the spam folder and "send it again"', async () => {
    const sent = await postForm({ email: ADA, keywords: 'react\nnext.js', excludes: '', minBudget: '', mode: 'instant' });
    expect(sent.status).toBe(202);
    expect(sent.type).toBe('text/html; charset=utf-8');
    expect(sent.html).toContain('<h1 tabindex="-1">Check your inbox</h1>');
    expect(sent.html).toContain(`We have sent an email to <strong class="signup-address">${ADA}</strong>.`);
    expect(sent.html).not.toContain('the address you entered');
    expect(sent.html).toMatch(/Not you\? <button(?=[^>]*name="action")(?=[^>]*value="change")[^>]*>Change it<\/button>/);
    expect(sent.html).toContain('spam or junk folder');
    expect(sent.html).toMatch(/<button(?=[^>]*name="action")(?=[^>]*value="resend")[^>]*>Send it again<\/button>/);
    expect(await userDoc()).toMatchObject({ status: 'pending', keywords: ['react', 'next.js'] });
    expect(await h.inbox()).toHaveLength(1);
  });

  it('a form post without a mode shows the form again with the error on mode and neither choice checked', async () => {
    const sent = await postForm({ email: ADA, keywords: 'react', excludes: '', minBudget: '' });
    expect(sent.status).toBe(400);
    const page = sent.html;
    expect(page).toContain('<span class="visually-hidden">Error: </span>Choose instant, daily, weekly or feed</p>');
    for (const mode of ['instant', 'daily']) {
      const radio = openingTag(page, 'input', `signup-mode-${mode}`);
      expect(radio).toContain('aria-invalid="true"');
      expect(radio).not.toContain('checked');
    }
    expect(openingTag(page, 'input', 'signup-email')).toContain(`value="${ADA}"`);
    expect(await h.dump(['users', 'emails'])).toEqual({ users: {}, emails: {} });
    expect(await h.inbox()).toHaveLength(0);
  });

  it('with errors shows the form again: 400, each error next to its field, the values kept and escaped', async () => {
    const sent = await postForm({
      email: 'ada@"><script>alert(1)</script>',
      keywords: 'react, <b>next.js</b>',
      excludes: 'php',
      minYearly: 'lots',
      mode: 'daily',
    });
    expect(sent.status).toBe(400);
    expect(sent.type).toBe('text/html; charset=utf-8');
    const page = sent.html;
    expect(page).not.toContain('<script>');
    const form = openingTag(page, 'form');
    expect(form).toContain('method="post"');
    expect(form).toContain('action="/api/signup"');

    // Email: invalid, described by its error, which follows it; the typed value is back, escaped; it takes focus.
    const email = openingTag(page, 'input', 'signup-email');
    expect(email).toContain('name="email"');
    expect(email).toContain('value="ada@&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(email).toContain('aria-invalid="true"');
    expect(email).toContain('aria-describedby="signup-email-error"');
    expect(email).toContain('autofocus=""');
    expect(page).toContain(
      `${email}<p id="signup-email-error" class="field-error"><span class="visually-hidden">Error: </span>Must be an email address</p>`,
    );
    const budget = openingTag(page, 'input', 'signup-minYearly');
    expect(budget).toContain('value="lots"');
    expect(budget).toContain('aria-invalid="true"');
    expect(budget).toContain('aria-describedby="signup-minPay-hint signup-minYearly-hint signup-minYearly-error"');
    expect(budget).not.toContain('autofocus');
    expect(page).toContain(
      `${budget}<p id="signup-minYearly-error" class="field-error"><span class="visually-hidden">Error: </span>Must be an amount, like 500, $1,500 or 150k</p>`,
    );

    // Markup in a keyword is refused next to its field, and shown back escaped.
    const keywords = openingTag(page, 'textarea', 'signup-keywords');
    expect(keywords).toContain('aria-describedby="signup-keywords-hint signup-keywords-error"');
    expect(keywords).toContain('aria-invalid="true"');
    expect(page).toContain(`${keywords}react, &lt;b&gt;next.js&lt;/b&gt;</textarea>`);
    expect(page).toContain(
      `<p id="signup-keywords-error" class="field-error"><span class="visually-hidden">Error: </span>Each keyword may use only letters, digits, spaces and + # . - / &amp; &#x27; (&quot;&lt;&quot; is not allowed)</p>`,
    );

    // Fields without errors keep their values and carry no error.
    const excludes = openingTag(page, 'textarea', 'signup-excludes');
    expect(excludes).not.toContain('aria-invalid');
    expect(page).toContain(`${excludes}php</textarea>`);
    expect(openingTag(page, 'input', 'signup-mode-daily')).toContain('checked=""');
    expect(openingTag(page, 'input', 'signup-mode-instant')).not.toContain('checked');
    expect(page).toContain('<legend>How often</legend>');
    expect(page).toContain('<label for="signup-email">Email</label>');
    expect(page.match(/class="field-error"/g)).toHaveLength(3);

    expect(await h.dump(['users', 'emails'])).toEqual({ users: {}, emails: {} });
    expect(await h.inbox()).toHaveLength(0);
  });
});

describe('POST /api/signup refuses what it cannot take', () => {
  it('a body over 16 KB: 413, whether Content-Length says so or not, and nothing is written', async () => {
    const big = JSON.stringify({ email: ADA, keywords: 'react', padding: 'x'.repeat(17 * 1024) });
    expect(Buffer.byteLength(big)).toBeGreaterThan(MAX_SIGNUP_BODY_BYTES);
    const sent = await post(big);
    expect(sent.status).toBe(413);
    expect(sent.json).toEqual({ error: 'request body too large: a signup is at most 16 KB' });

    // A streamed body declares no length (or a false one): the bytes are counted as they arrive.
    const chunk = new TextEncoder().encode('x'.repeat(1024));
    let sentChunks = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sentChunks++ < 64) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const streamed = await handleSignupRequest(
      new Request('http://localhost:3000/api/signup', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
      { ...h.deps, now: NOW },
    );
    expect(streamed.status).toBe(413);
    expect(sentChunks).toBeLessThan(64);

    // A Content-Length that understates the body is not believed either.
    expect((await post(big, { headers: { 'content-length': '20' } })).status).toBe(413);

    const form = await post(new URLSearchParams({ email: ADA, keywords: 'k'.repeat(17 * 1024) }).toString(), {
      type: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(413);
    expect(form.html).toContain('That is too much text');
    expect(await h.dump(['users', 'emails', 'rateLimits'])).toEqual({ users: {}, emails: {}, rateLimits: {} });
  });

  it('a content type other than JSON or a form: 415', async () => {
    for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/xml', '']) {
      const sent = await post(JSON.stringify({ email: ADA, keywords: 'react' }), { type });
      expect(sent.status, type).toBe(415);
      expect(sent.json.error).toContain('application/json or application/x-www-form-urlencoded');
    }
    expect((await post({ email: ADA, keywords: 'react', mode: 'instant' }, { type: 'Application/JSON; charset=UTF-8' })).status).toBe(202);
  });

  it('another method: 405', async () => {
    const response = await handleSignupRequest(new Request('http://localhost:3000/api/signup'), { ...h.deps, now: NOW });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('more than 20 signups an hour from one client address: 429, other clients unaffected, no raw address stored', async () => {
    for (let i = 0; i < SIGNUP_LIMITS.clientPerWindow; i++) {
      expect((await post({ email: `user${i}@example.com`, keywords: 'react', mode: 'instant' }, { ip: '203.0.113.99' })).status).toBe(202);
    }
    const limited = await post({ email: 'one-more@example.com', keywords: 'react', mode: 'instant' }, { ip: '203.0.113.99' });
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ error: 'too many signups from your network; try again later' });
    expect(Number(limited.headers.get('retry-after'))).toBe(3600); // NOW is on the hour
    expect(await userDoc(subscriberId('one-more@example.com'))).toBeUndefined();

    const form = await postForm({ email: 'one-more@example.com', keywords: 'react', mode: 'instant' }, { ip: '203.0.113.99' });
    expect(form.status).toBe(429);
    expect(form.html).toContain('Too many signups');

    expect((await post({ email: 'other@example.com', keywords: 'react', mode: 'instant' }, { ip: '192.0.2.1' })).status).toBe(202);
    expect(
      (await post({ email: 'later@example.com', keywords: 'react', mode: 'instant' }, { ip: '203.0.113.99', now: minutesLater(60) }))
        .status,
    ).toBe(202);

    const rateLimits = (await h.dump(['rateLimits'])).rateLimits;
    expect(JSON.stringify(rateLimits)).not.toContain('203.0.113');
    expect(JSON.stringify(rateLimits)).not.toContain('192.0.2');
    for (const [id, doc] of Object.entries(rateLimits)) expect(doc, id).toHaveProperty('expireAt');
  });
});

describe('/confirm with a link that does not work', () => {
  it('tampered, expired, wrong-purpose, foreign and malformed tokens: 400 with a clear page, nothing changed', async () => {
    await post({ email: ADA, keywords: 'react', mode: 'instant' });
    const good = new URL(linkIn((await h.inbox())[0].text, '/confirm')).searchParams.get('token')!;
    const [body, signature] = good.split('.');
    const forged = Buffer.from(JSON.stringify({ uid: ADA_ID, purpose: 'confirm', exp: 4_000_000_000 })).toString('base64url');
    const cases: Record<string, { token: string; says: string }> = {
      'tampered body': { token: `${forged}.${signature}`, says: 'This link is not valid' },
      'tampered signature': { token: `${body}.${signature.slice(0, -2)}xx`, says: 'This link is not valid' },
      'another secret': {
        token: signLinkToken({ uid: ADA_ID, purpose: 'confirm', exp: 4_000_000_000 }, 'some-other-secret-0123456789'),
        says: 'This link is not valid',
      },
      expired: {
        token: signLinkToken({ uid: ADA_ID, purpose: 'confirm', exp: NOW.getTime() / 1000 - 1 }, h.config.LINK_SECRET),
        says: 'This confirmation link has expired',
      },
      'wrong purpose': {
        token: signLinkToken({ uid: ADA_ID, purpose: 'preferences', exp: 4_000_000_000 }, h.config.LINK_SECRET),
        says: 'This is not a confirmation link',
      },
      malformed: { token: 'not-a-token', says: 'This link is not valid' },
      missing: { token: '', says: 'This link is not valid' },
    };
    const before = await h.dump(['users', 'emails']);
    for (const [name, { token, says }] of Object.entries(cases)) {
      for (const method of ['GET', 'POST'] as const) {
        const page = await confirmCall(method, `http://localhost:3000/confirm?token=${encodeURIComponent(token)}`);
        expect(page.status, `${name} ${method}`).toBe(400);
        expect(page.html, `${name} ${method}`).toContain(says);
        expect(page.html).not.toContain('<form');
      }
    }
    // The real link expires after two days.
    const expired = await confirmCall('POST', `http://localhost:3000/confirm?token=${good}`, minutesLater(2 * 24 * 60 + 1));
    expect(expired.status).toBe(400);
    expect(expired.html).toContain('This confirmation link has expired');
    expect(await h.dump(['users', 'emails'])).toEqual(before);
    expect(await userDoc()).toMatchObject({ status: 'pending' });
  });

  it('an unsubscribed or unknown subscriber: a clear page, nothing changed, nobody created', async () => {
    await post({ email: ADA, keywords: 'react', mode: 'instant' });
    const link = linkIn((await h.inbox())[0].text, '/confirm');
    await h.db.collection('users').doc(ADA_ID).update({ status: 'unsubscribed' });
    for (const method of ['GET', 'POST'] as const) {
      const page = await confirmCall(method, link);
      expect(page.status).toBe(409);
      expect(page.html).toContain('This address has unsubscribed');
    }
    expect(await userDoc()).toMatchObject({ status: 'unsubscribed' });

    const gone = subscriberId('gone@example.com');
    const goneLink = confirmUrl({ appUrl: h.config.APP_URL, uid: gone, secret: h.config.LINK_SECRET, issuedAt: NOW, nonce: 'some-nonce' });
    for (const method of ['GET', 'POST'] as const) {
      const page = await confirmCall(method, goneLink);
      expect(page.status).toBe(404);
      expect(page.html).toContain('No signup found');
    }
    expect(await userDoc(gone)).toBeUndefined();
  });
});

describe('opt-in before alerts', () => {
  it('a pending subscriber receives no job alerts; once confirmed, the week’s matches come as the welcome and new ones as alerts', async () => {
    await post({ email: ADA, keywords: 'react', mode: 'instant' });
    h.serveFeed(postingsAbout('react', 2, { at: minutesLater(5), prefix: 'first' }));
    const run = await h.cron({ now: minutesLater(5).toISOString() });
    expect(run.status).toBe(200);
    expect(run.body.jobsNew).toBe(2);
    expect((await h.inbox()).map((m) => m.subject)).toEqual(['Confirm your Scout subscription']);
    expect((await deliveriesCollection(h.db).where('uid', '==', ADA_ID).get()).size).toBe(0);

    await confirmCall('POST', linkIn((await h.inbox())[0].text, '/confirm'), minutesLater(6));
    h.serveFeed(postingsAbout('react', 1, { at: minutesLater(20), prefix: 'second' }));
    expect((await h.cron({ now: minutesLater(20).toISOString() })).status).toBe(200);
    const subjects = (await h.inbox()).map((m) => m.subject);
    expect(subjects).toHaveLength(3);
    expect(subjects[1]).toMatch(/^Welcome to Scout: 2 matches, top: react engineer wanted #\d/);
    expect(subjects[2]).toMatch(/^1 new: react engineer wanted #1 \(second\)/);
  });
});
