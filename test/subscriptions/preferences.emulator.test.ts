import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryStatus } from '../../lib/ledger/delivery';
import { deliveriesOf as linesOf, putDelivery } from '../support/deliveries';
import { handlePreferencesRequest } from '../../lib/subscriptions/handle-preferences-request';
import { preferencesUrl, signLinkToken, unsubscribeUrl, verifyLinkToken } from '../../lib/subscribers/link-token';
import { changeStatus, updatePreferences } from '../../lib/subscriptions/preferences';
import { subscribersCollection } from '../../lib/subscribers/subscriber';
import { unsubscribeSubscriber } from '../../lib/subscriptions/unsubscribe';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { FORM_SCRIPT } from '../../lib/http/form-script';

const NOW = new Date('2026-11-30T06:00:00Z');
const ADA = 'ada@example.com';
let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const linkFor = (uid: string, linkVersion?: number) =>
  preferencesUrl({ appUrl: h.config.APP_URL, uid, linkVersion, secret: h.config.LINK_SECRET, issuedAt: NOW });
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
const withToken = (token: string) => `http://localhost:3000/preferences?token=${encodeURIComponent(token)}`;

type Page = { status: number; type: string | null; html: string };

async function respond(request: Request, now = NOW): Promise<Page> {
  const response = await handlePreferencesRequest(request, { db: h.db, config: h.config, now });
  return { status: response.status, type: response.headers.get('content-type'), html: await response.text() };
}

const get = (url: string) => respond(new Request(url));

/** What the page's forms send: form-encoded fields, no cookies. */
const post = (url: string, fields: Record<string, string>, now = NOW) =>
  respond(
    new Request(url, {
      method: 'POST',
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
    now,
  );

const save = (url: string, fields: Record<string, string>) => post(url, { action: 'save', ...fields });

const userDoc = async (uid: string) => (await h.db.collection('users').doc(uid).get()).data()!;

async function addDelivery(uid: string, jobId: string, status: DeliveryStatus) {
  await putDelivery(h.db, { uid, jobId, status, now: NOW });
}

const deliveriesOf = async (uid: string) => (await linesOf(h.db, uid)).map((d) => ({ status: d.status, reason: d.reason }));

/** The value of a form control, read back from the page. */
const textareaValue = (page: string, name: string) => page.match(new RegExp(`<textarea[^>]*name="${name}"[^>]*>([^<]*)</textarea>`))?.[1];
const inputTag = (page: string, id: string) => page.match(new RegExp(`<input[^>]*id="${id}"[^>]*>`))?.[0] ?? '';
/** Every script tag of a page: the preferences page loads the one static form script, and nothing inline. */
const scriptTags = (page: string) => page.match(/<script[^>]*>/g) ?? [];
const FORM_SCRIPT_TAG = `<script src="${FORM_SCRIPT}" defer="">`;

describe('GET /preferences', () => {
  it('shows the form prefilled with everything the subscriber chose, and changes nothing', async () => {
    const uid = await h.subscribe({
      email: ADA,
      keywords: ['react', 'node.js'],
      excludes: ['wordpress'],
      minFixed: 500,
      minYearly: '€90k',
      mode: 'daily',
    });
    await addDelivery(uid, 'rss_a', 'queued');
    const before = await h.dump();

    const page = await get(linkFor(uid));
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.html).toContain('Your Scout preferences');
    expect(page.html).toContain('a***@example.com');
    expect(page.html).not.toContain(ADA);
    expect(page.html).toMatch(/Status: <strong>Active<\/strong>/);
    // What they get now, in words, from what is stored.
    expect(page.html).toContain('<p class="current-cadence">Scout sends you one digest of the best matches at 08:00 UTC.</p>');

    // Every field labelled, prefilled, and posting back to the same link.
    const action = `action="?token=${tokenOf(linkFor(uid))}"`;
    expect(page.html.match(new RegExp(`<form[^>]* ${action.replace(/[?]/g, '\\?')} method="post">`, 'g'))).toHaveLength(4); // save, pause, revoke the feed URL, revoke my links
    for (const id of ['keywords', 'excludes', 'minFixed', 'minHourly', 'minYearly', 'minCurrency', 'mode-instant', 'mode-daily'])
      expect(page.html).toContain(`<label for="${id}">`);
    expect(textareaValue(page.html, 'keywords')).toBe('react, node.js');
    expect(textareaValue(page.html, 'excludes')).toBe('wordpress');
    // One currency select for all three: the first minimum's; one in another currency keeps its code.
    expect(inputTag(page.html, 'minFixed')).toContain('value="500"');
    expect(inputTag(page.html, 'minHourly')).toContain('value=""');
    expect(inputTag(page.html, 'minYearly')).toContain('value="90000 EUR"');
    expect(page.html).toMatch(/<option value="USD" selected="">USD<\/option>/);
    expect(page.html).toMatch(/<fieldset>\s*<legend>How often to email you<\/legend>/);
    expect(inputTag(page.html, 'mode-daily')).toContain(' checked');
    expect(inputTag(page.html, 'mode-instant')).not.toContain(' checked');
    expect(page.html).not.toContain('aria-invalid="true"');

    // Save, Pause (a separate form with its own action), and a working unsubscribe link.
    expect(page.html).toContain('<input type="hidden" name="action" value="save"/>');
    expect(page.html).toContain('<input type="hidden" name="action" value="pause"/>');
    expect(page.html).toContain('>Save preferences</button>');
    expect(page.html).toContain('>Pause emails</button>');
    const unsubscribe = page.html.match(/href="(http:\/\/localhost:3000\/unsubscribe\?token=[^"]+)"/)?.[1];
    expect(unsubscribe).toBe(unsubscribeUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW }));
    expect(verifyLinkToken(tokenOf(unsubscribe!), { secret: h.config.LINK_SECRET, purpose: 'unsubscribe', now: NOW })).toMatchObject({
      ok: true,
      claims: { uid },
    });
    expect(scriptTags(page.html)).toEqual([FORM_SCRIPT_TAG]);

    expect(await h.dump()).toEqual(before);
  });
});

describe('saving', () => {
  it('normalises keywords and stores excludes, budget and mode', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'], mode: 'daily' });
    const page = await save(linkFor(uid), {
      keywords: '  React ,NODE.js\r\n   Type    Script \n\nreact,',
      excludes: 'WordPress, PHP',
      minFixed: '$1,500',
      minHourly: '45',
      minCurrency: 'EUR',
      mode: 'instant',
    });
    expect(page.status).toBe(200);
    expect(page.html).toContain('role="status"><p>Saved.');
    expect(textareaValue(page.html, 'keywords')).toBe('react, node.js, type script');
    expect(textareaValue(page.html, 'excludes')).toBe('wordpress, php');
    // The select shows the first minimum's currency; the other keeps its code, so saving again changes nothing.
    expect(inputTag(page.html, 'minFixed')).toContain('value="1500"');
    expect(inputTag(page.html, 'minHourly')).toContain('value="45 EUR"');
    expect(inputTag(page.html, 'mode-instant')).toContain(' checked');

    const user = await userDoc(uid);
    expect(user).toMatchObject({
      keywords: ['react', 'node.js', 'type script'],
      excludes: ['wordpress', 'php'],
      minPay: { fixed: { amount: 1500, currency: 'USD' }, hourly: { amount: 45, currency: 'EUR' }, yearly: null },
      mode: 'instant',
      status: 'active',
      email: ADA,
    });
    expect(user.updatedAt.toDate()).toEqual(NOW);

    // An empty minimum means "no minimum"; empty excludes mean none.
    expect((await save(linkFor(uid), { keywords: 'react', excludes: '', minFixed: ' ', minHourly: '', mode: 'daily' })).status).toBe(200);
    expect(await userDoc(uid)).toMatchObject({
      keywords: ['react'],
      excludes: [],
      minPay: { fixed: null, hourly: null, yearly: null },
      mode: 'daily',
    });

    // A page from before per-kind minimums posts minBudget: the fixed minimum in USD it always meant.
    expect((await save(linkFor(uid), { keywords: 'react', minBudget: '700', mode: 'daily' })).status).toBe(200);
    expect(await userDoc(uid)).toMatchObject({ minPay: { fixed: { amount: 700, currency: 'USD' }, hourly: null, yearly: null } });
  });

  it('the cycle matches with the new keywords from the next run', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['cobol'], mode: 'instant' });
    expect((await save(linkFor(uid), { keywords: 'Python', mode: 'instant' })).status).toBe(200);
    h.serveFeed(postingsAbout('python', 2, { at: NOW }));
    expect((await h.cron({ now: NOW.toISOString() })).body).toMatchObject({ instantEmails: 1 });
    expect(await h.inbox(ADA)).toHaveLength(1);
  });

  it('switching daily → instant closes the queued items: they are never sent, new postings come instantly', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['python'], mode: 'daily' });
    const bob = await h.subscribe({ email: 'bob@example.com', keywords: ['python'], mode: 'daily' });
    h.serveFeed(postingsAbout('python', 3, { at: NOW }));
    expect((await h.cron({ now: NOW.toISOString() })).body).toMatchObject({ queued: 6 });

    const page = await save(linkFor(uid), { keywords: 'python', mode: 'instant' });
    expect(page.status).toBe(200);
    expect(page.html).toContain('3 postings waiting for your digest will not be sent.');
    expect(await deliveriesOf(uid)).toEqual(Array(3).fill({ status: 'skipped', reason: 'mode_changed' }));
    expect(await deliveriesOf(bob)).toEqual(Array(3).fill({ status: 'queued', reason: null }));

    // The digest hour comes: Bob gets his digest, Ada gets nothing from the old queue.
    const at = '2026-11-30T08:05:00Z';
    h.serveFeed([...postingsAbout('python', 3, { at: NOW }), ...postingsAbout('python', 2, { at: new Date(at), prefix: 'fresh' })]);
    const run = (await h.cron({ now: at })).body;
    expect(run).toMatchObject({ digests: 1, instantEmails: 1 });
    const inbox = await h.inbox(ADA);
    expect(inbox).toHaveLength(1);
    expect(inbox[0].text).toContain('fresh');
    expect(inbox[0].text).not.toContain('(batch)');
    expect(await h.inbox('bob@example.com')).toHaveLength(1);
    expect((await deliveriesOf(uid)).filter((d) => d.status === 'skipped')).toHaveLength(3);
  });
});

describe('pause and resume', () => {
  it('pausing closes queued items and the next cycles send nothing; resuming brings new postings back', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['python'], mode: 'daily' });
    const cat = await h.subscribe({ email: 'cat@example.com', keywords: ['python'], mode: 'instant' });
    h.serveFeed(postingsAbout('python', 3, { at: NOW }));
    expect((await h.cron({ now: NOW.toISOString() })).body).toMatchObject({ queued: 3, instantEmails: 1 });

    const paused = await post(linkFor(uid), { action: 'pause' });
    expect(paused.status).toBe(200);
    expect(paused.html).toContain('Paused. Scout will send you nothing until you resume.');
    expect(paused.html).toMatch(/Status: <strong>Paused<\/strong>/);
    expect(paused.html).toContain('<input type="hidden" name="action" value="resume"/>');
    expect(paused.html).toContain('>Resume emails</button>');
    expect(await userDoc(uid)).toMatchObject({ status: 'paused' });
    expect(await deliveriesOf(uid)).toEqual(Array(3).fill({ status: 'skipped', reason: 'subscriber_paused' }));
    expect((await post(linkFor(cat), { action: 'pause' })).status).toBe(200);

    // New postings and the digest hour: a paused subscriber gets nothing, in either mode.
    const at = '2026-11-30T08:05:00Z';
    h.serveFeed([...postingsAbout('python', 3, { at: NOW }), ...postingsAbout('python', 2, { at: new Date(at), prefix: 'fresh' })]);
    expect((await h.cron({ now: at })).body).toMatchObject({ digests: 0, instantEmails: 0, queued: 0 });
    expect(await h.inbox(ADA)).toHaveLength(0);
    expect(await h.inbox('cat@example.com')).toHaveLength(1); // the alert from before the pause

    // Paused subscribers may still edit their preferences; saving does not resume them.
    expect((await save(linkFor(uid), { keywords: 'python, django', mode: 'daily' })).status).toBe(200);
    expect(await userDoc(uid)).toMatchObject({ status: 'paused', keywords: ['python', 'django'] });
    // Pausing twice is harmless.
    const again = await post(linkFor(uid), { action: 'pause' });
    expect(again.html).toContain('Your emails were already paused.');

    const resumed = await post(linkFor(cat), { action: 'resume' });
    expect(resumed.status).toBe(200);
    expect(resumed.html).toContain('Resumed.');
    expect(resumed.html).toContain('>Pause emails</button>');
    expect(await userDoc(cat)).toMatchObject({ status: 'active' });
    const later = '2026-11-30T09:00:00Z';
    h.serveFeed(postingsAbout('python', 1, { at: new Date(later), prefix: 'after-resume' }));
    expect((await h.cron({ now: later })).body).toMatchObject({ instantEmails: 1 });
    const catInbox = await h.inbox('cat@example.com');
    expect(catInbox).toHaveLength(2);
    expect(catInbox[1].text).toContain('after-resume');
    expect(await h.inbox(ADA)).toHaveLength(0);
  });

  it('changeStatus never revives someone who unsubscribed or skips the opt-in of someone pending', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'] });
    await unsubscribeSubscriber(h.db, {
      token: tokenOf(unsubscribeUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW })),
      secret: h.config.LINK_SECRET,
      now: NOW,
    });
    expect(await changeStatus(h.db, { uid, action: 'resume', now: NOW })).toMatchObject({
      ok: false,
      kind: 'refused',
      status: 'unsubscribed',
    });
    expect(await changeStatus(h.db, { uid, action: 'pause', now: NOW })).toMatchObject({ ok: false, kind: 'refused' });
    expect(await updatePreferences(h.db, { uid, input: { keywords: 'vue', mode: 'daily' }, now: NOW, digestHourUtc: 8 })).toEqual({
      ok: false,
      kind: 'not-editable',
      status: 'unsubscribed',
    });
    expect(await userDoc(uid)).toMatchObject({ status: 'unsubscribed', keywords: ['react'] });
    expect(await changeStatus(h.db, { uid: 'bm9ib2R5', action: 'resume', now: NOW })).toEqual({ ok: false, kind: 'unknown-subscriber' });
  });
});

describe('subscribers who cannot edit preferences', () => {
  it('an unsubscribed subscriber sees a clear page and cannot resume or save', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'], mode: 'daily' });
    await unsubscribeSubscriber(h.db, {
      token: tokenOf(unsubscribeUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW })),
      secret: h.config.LINK_SECRET,
      now: NOW,
    });
    const before = await h.dump();

    // Every link emailed before the unsubscribe is of an older link version now: expired, with how to get a new one.
    const old = await get(linkFor(uid));
    expect(old.status).toBe(400);
    expect(old.html).toContain('This link has expired — ask for a new one');
    expect(old.html).not.toContain('<form');
    expect((await post(linkFor(uid), { action: 'resume' })).status).toBe(400);

    // A link of their current version (the unsubscribe moved it to 1) hears that they left.
    const page = await get(linkFor(uid, 1));
    expect(page.status).toBe(200);
    expect(page.html).toContain('You are unsubscribed');
    expect(page.html).not.toContain('<form');

    for (const fields of [{ action: 'resume' }, { action: 'pause' }, { action: 'save', keywords: 'vue', mode: 'instant' }] as Record<
      string,
      string
    >[]) {
      const refused = await post(linkFor(uid, 1), fields);
      expect(refused.status, fields.action).toBe(409);
      expect(refused.html).toContain('You are unsubscribed');
      expect(refused.html).not.toContain('<form');
    }
    expect(await h.dump()).toEqual(before);
    expect(await userDoc(uid)).toMatchObject({ status: 'unsubscribed' });
  });

  it('a pending subscriber is asked to confirm first; nothing changes', async () => {
    const uid = Buffer.from('pat@example.com').toString('base64url');
    await subscribersCollection(h.db)
      .doc(uid)
      .create({
        id: uid,
        email: 'pat@example.com',
        keywords: ['go'],
        excludes: [],
        about: '',
        profileVersion: 1,
        fitThreshold: 60,
        minPay: { fixed: null, hourly: null, yearly: null },
        mode: 'instant',
        status: 'pending',
        timezone: 'UTC',
        digestHour: null,
        weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        weeklyDay: 'mon',
        createdAt: NOW,
        confirmedAt: null,
        updatedAt: NOW,
      });
    const before = await h.dump();
    expect(await get(linkFor(uid))).toMatchObject({ status: 200, html: expect.stringContaining('Confirm your email first') });
    expect(await post(linkFor(uid), { action: 'resume' })).toMatchObject({ status: 409 });
    expect(await save(linkFor(uid), { keywords: 'rust', mode: 'daily' })).toMatchObject({ status: 409 });
    expect(await h.dump()).toEqual(before);
  });

  it('a valid link for a subscriber who is gone answers 404 and creates nobody', async () => {
    const uid = Buffer.from('gone@example.com').toString('base64url');
    expect((await get(linkFor(uid))).status).toBe(404);
    expect((await save(linkFor(uid), { keywords: 'react', mode: 'instant' })).status).toBe(404);
    expect((await post(linkFor(uid), { action: 'resume' })).status).toBe(404);
    expect((await h.db.collection('users').doc(uid).get()).exists).toBe(false);
  });
});

describe('bad input', () => {
  it('answers 400 with the form as sent, each error next to its field, and changes nothing', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'], excludes: ['php'], minFixed: 100, mode: 'daily' });
    await addDelivery(uid, 'rss_a', 'queued');
    const before = await h.dump();
    const tooMany = Array.from({ length: 26 }, (_, i) => `word${i}`).join(', ');
    const page = await save(linkFor(uid), {
      keywords: ' , \n ',
      excludes: `${tooMany}, "><script>alert(1)</script>`,
      minHourly: 'lots',
      mode: 'hourly',
    });
    expect(page.status).toBe(400);
    expect(page.html).toContain('<title>Error: Your preferences · Scout</title>');
    expect(page.html).toContain('Nothing was saved: 4 fields need fixing');
    expect(page.html).toContain('role="alert"');

    const errorOf = (field: string) => page.html.match(new RegExp(`<p class="field-error" id="${field}-error">(.*?)</p>`))?.[1];
    expect(errorOf('keywords')).toContain('enter at least one keyword');
    expect(errorOf('excludes')).toContain('enter at most 25 excludes');
    expect(errorOf('minHourly')).toContain('must be an amount');
    expect(errorOf('mode')).toContain('choose instant, daily, weekly or feed');
    for (const [control, field] of [
      [page.html.match(/<textarea[^>]*id="keywords"[^>]*>/)![0], 'keywords'],
      [page.html.match(/<textarea[^>]*id="excludes"[^>]*>/)![0], 'excludes'],
      [inputTag(page.html, 'minHourly'), 'minHourly'],
      [inputTag(page.html, 'mode-instant'), 'mode'],
      [inputTag(page.html, 'mode-daily'), 'mode'],
    ]) {
      expect(control).toContain('aria-invalid="true"');
      expect(control).toMatch(new RegExp(`aria-describedby="[^"]*\\b${field}-error\\b`));
    }
    // The user's own values are kept, escaped; nothing is checked that they did not choose.
    expect(textareaValue(page.html, 'excludes')).toBe(`${tooMany}, &quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;`);
    expect(inputTag(page.html, 'minHourly')).toContain('value="lots"');
    // (The weekday boxes are not on the post, so they show as stored: every day.)
    expect(page.html.match(/<input[^>]*name="mode"[^>]*>/g)?.filter((radio) => radio.includes(' checked'))).toEqual([]);
    expect(scriptTags(page.html)).toEqual([FORM_SCRIPT_TAG]);

    // One field wrong: only that one is marked.
    const one = await save(linkFor(uid), { keywords: `react, ${'x'.repeat(61)}`, mode: 'instant', minYearly: '-1' });
    expect(one.status).toBe(400);
    expect(one.html).toContain('each keyword must be at most 60 characters');
    expect(one.html).toContain('must be 0 or more');
    expect(textareaValue(one.html, 'excludes')).toBe('');
    expect(inputTag(one.html, 'mode-instant')).toContain(' checked');
    expect(inputTag(one.html, 'mode-instant')).not.toContain('aria-invalid');

    expect(await post(linkFor(uid), { action: 'delete-everything' })).toMatchObject({ status: 400 });
    expect(await h.dump()).toEqual(before);
  });

  it('markup, invisible characters and punctuation-only terms are refused naming the field; words in any script are saved', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'], mode: 'daily' });
    const before = await h.dump();
    const page = await save(linkFor(uid), { keywords: 'react, <script>alert(1)</script>', excludes: 'php\u200b, ++', mode: 'daily' });
    expect(page.status).toBe(400);
    const errorOf = (field: string) => page.html.match(new RegExp(`<p class="field-error" id="${field}-error">(.*?)</p>`))?.[1];
    expect(errorOf('keywords')).toContain(
      'each keyword may use only letters, digits, spaces and + # . - / &amp; &#x27; (&quot;&lt;&quot; is not allowed)',
    );
    expect(errorOf('excludes')).toContain(
      'each exclude may use only letters, digits, spaces and + # . - / &amp; &#x27; (U+200B, an invisible character, is not allowed)',
    );
    expect(page.html).not.toContain('<script>');
    expect(await h.dump()).toEqual(before);

    const saved = await save(linkFor(uid), {
      keywords: 'Разработчик, 開発, C++, node.js, UI/UX, R&D',
      excludes: "o'reilly",
      mode: 'daily',
    });
    expect(saved.status).toBe(200);
    expect(await userDoc(uid)).toMatchObject({
      keywords: ['разработчик', '開発', 'c++', 'node.js', 'ui/ux', 'r&d'],
      excludes: ["o'reilly"],
    });
  });

  it('a subscriber whose stored keywords predate the rule still sees their page, and fixes them on save', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'], mode: 'daily' });
    await h.db
      .collection('users')
      .doc(uid)
      .update({ keywords: ['react', '<b>vue</b>', 'go\u200b'], excludes: ['++'] });

    const page = await get(linkFor(uid));
    expect(page.status).toBe(200);
    expect(textareaValue(page.html, 'keywords')).toBe('react, &lt;b&gt;vue&lt;/b&gt;, go\u200b');
    expect(textareaValue(page.html, 'excludes')).toBe('++');
    expect(page.html).not.toContain('aria-invalid="true"');

    // Saving the page as shown is refused, naming what to change; nothing is lost.
    const before = await h.dump();
    const unchanged = await save(linkFor(uid), { keywords: 'react, <b>vue</b>, go\u200b', excludes: '++', mode: 'daily' });
    expect(unchanged.status).toBe(400);
    expect(unchanged.html).toContain('Nothing was saved: 2 fields need fixing');
    expect(unchanged.html).toContain('(&quot;&lt;&quot; is not allowed)');
    expect(unchanged.html).toContain('each exclude needs a letter or digit: &quot;++&quot; can never match a posting&#x27;s words');
    expect(await h.dump()).toEqual(before);

    const fixed = await save(linkFor(uid), { keywords: 'react, vue, go', excludes: '', mode: 'daily' });
    expect(fixed.status).toBe(200);
    expect(await userDoc(uid)).toMatchObject({ keywords: ['react', 'vue', 'go'], excludes: [] });
  });

  it('a body over 16 KB is refused with 413, announced or not; a body that is not a form with 415', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'] });
    const before = await h.dump();
    const big = new URLSearchParams({ action: 'save', keywords: 'react', mode: 'daily', excludes: 'x'.repeat(17_000) }).toString();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };

    const announced = await respond(
      new Request(linkFor(uid), { method: 'POST', body: big, headers: { ...form, 'content-length': String(big.length) } }),
    );
    expect(announced.status).toBe(413);
    expect(announced.html).toContain('That was too much to save');

    // Streamed without a Content-Length: counted as it arrives.
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 1024) controller.enqueue(bytes.slice(i, i + 1024));
        controller.close();
      },
    });
    const streamed = await respond(
      new Request(linkFor(uid), { method: 'POST', body: stream, headers: form, duplex: 'half' } as RequestInit),
    );
    expect(streamed.status).toBe(413);

    const json = await respond(
      new Request(linkFor(uid), {
        method: 'POST',
        body: JSON.stringify({ action: 'pause' }),
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(json.status).toBe(415);
    expect(await h.dump()).toEqual(before);
  });
});

describe('a link that does not work', () => {
  it('answers 400 with a clear page and changes nothing, for GET and every POST', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'], mode: 'daily' });
    await addDelivery(uid, 'rss_a', 'queued');
    const good = tokenOf(linkFor(uid));
    const [body, signature] = good.split('.');
    const forged = Buffer.from(JSON.stringify({ uid, purpose: 'preferences', exp: 4_000_000_000 })).toString('base64url');
    const cases: Record<string, { token: string; says: string }> = {
      'tampered body': { token: `${forged}.${signature}`, says: 'This link is not valid' },
      'tampered signature': { token: `${body}.${signature.slice(0, -2)}xx`, says: 'This link is not valid' },
      'another secret': {
        token: signLinkToken({ uid, purpose: 'preferences', exp: 4_000_000_000 }, 'some-other-secret-0123456789'),
        says: 'This link is not valid',
      },
      expired: {
        token: signLinkToken({ uid, purpose: 'preferences', exp: NOW.getTime() / 1000 - 1 }, h.config.LINK_SECRET),
        says: 'This link has expired',
      },
      'wrong purpose (unsubscribe)': {
        token: signLinkToken({ uid, purpose: 'unsubscribe', exp: 4_000_000_000 }, h.config.LINK_SECRET),
        says: 'This is not a preferences link',
      },
      'wrong purpose (confirm)': {
        token: signLinkToken({ uid, purpose: 'confirm', exp: 4_000_000_000 }, h.config.LINK_SECRET),
        says: 'This is not a preferences link',
      },
      malformed: { token: 'not-a-token', says: 'This link is not valid' },
      missing: { token: '', says: 'This link is not valid' },
    };
    const before = await h.dump();
    for (const [name, { token, says }] of Object.entries(cases)) {
      const url = withToken(token);
      for (const page of [
        await get(url),
        await save(url, { keywords: 'vue', mode: 'instant' }),
        await post(url, { action: 'pause' }),
        await post(url, { action: 'resume' }),
      ]) {
        expect(page.status, name).toBe(400);
        expect(page.html, name).toContain(says);
        expect(page.html).not.toContain('<form');
      }
    }
    expect((await get('http://localhost:3000/preferences')).status).toBe(400);
    expect(await h.dump()).toEqual(before);
  });
});

describe('concurrent changes', () => {
  it('two saves at the same moment both land, one after the other; neither fails', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'], mode: 'daily' });
    const first = { keywords: 'vue', excludes: 'php', minFixed: '100', mode: 'daily' };
    const second = { keywords: 'svelte', excludes: '', minFixed: '', mode: 'instant' };
    const pages = await Promise.all([save(linkFor(uid), first), save(linkFor(uid), second)]);
    expect(pages.map((p) => p.status)).toEqual([200, 200]);
    for (const page of pages) expect(page.html).toContain('Saved.');
    // The last one to land wins whole: never a mix of the two forms.
    const user = await userDoc(uid);
    const stored = { keywords: user.keywords, excludes: user.excludes, minPay: user.minPay, mode: user.mode };
    expect([
      {
        keywords: ['vue'],
        excludes: ['php'],
        minPay: { fixed: { amount: 100, currency: 'USD' }, hourly: null, yearly: null },
        mode: 'daily',
      },
      { keywords: ['svelte'], excludes: [], minPay: { fixed: null, hourly: null, yearly: null }, mode: 'instant' },
    ]).toContainEqual(stored);
  });

  it('a save and a pause racing each other both take effect', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'], mode: 'daily' });
    const [saved, paused] = await Promise.all([
      save(linkFor(uid), { keywords: 'vue', mode: 'daily' }),
      post(linkFor(uid), { action: 'pause' }),
    ]);
    expect([saved.status, paused.status]).toEqual([200, 200]);
    expect(await userDoc(uid)).toMatchObject({ keywords: ['vue'], status: 'paused' });
  });

  it('eight saves at once all succeed (each lost guard re-reads and writes again)', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'], mode: 'daily' });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        updatePreferences(h.db, { uid, input: { keywords: `kw${i}`, mode: 'daily' }, now: NOW, digestHourUtc: 8 }),
      ),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect((await userDoc(uid)).keywords).toHaveLength(1);
  });
});
