import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { feedbackCollection, feedbackId } from '../../lib/ledger/feedback';
import { PAGE_POLICY } from '../../lib/http/page';
import { notAFitUrl, preferencesUrl, unsubscribeUrl, verifyLinkToken } from '../../lib/subscribers/link-token';
import { handleNotAFitRequest, MAX_NOT_A_FIT_BODY_BYTES } from '../../lib/subscriptions/handle-not-a-fit-request';
import { unsubscribeSubscriber } from '../../lib/subscriptions/unsubscribe';
import { createHarness, type Harness } from '../support/harness';
import { putPosting } from '../support/postings';

/**
 * "Not a fit" from the email: GET (and HEAD) show one button and record nothing,
 * because mail scanners open every link; POST records feedback/{uid}_{jobId} exactly once, however
 * many clicks arrive; a link that is not valid, or a subscriber who is gone, records nothing.
 */

const NOW = new Date('2026-11-30T06:00:00Z');
const JOB = 'sample_AbCdEfGhIjKlMnOpQrSt';
let h: Harness;
let uid: string;

beforeEach(async () => {
  h = await createHarness();
  uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
  await putPosting(h.db, {
    id: JOB,
    title: 'WordPress <b>theme</b> for a bakery',
    description: `Customise a theme. Contact jobs@bakery.example. ${'Lots of detail. '.repeat(100)}`,
    skills: ['WordPress', 'PHP'],
    now: NOW,
  });
});
afterEach(async () => h.close());

const linkFor = (jobId = JOB, who = uid, issuedAt = NOW, linkVersion?: number) =>
  notAFitUrl({ appUrl: h.config.APP_URL, uid: who, jobId, linkVersion, secret: h.config.LINK_SECRET, issuedAt });
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

type Answer = { status: number; headers: Headers; html: string };

async function call(
  method: string,
  url: string,
  init: { body?: string; headers?: Record<string, string>; now?: Date } = {},
): Promise<Answer> {
  const request = new Request(url, {
    method,
    body: init.body,
    headers: init.headers ?? (method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
  });
  const response = await handleNotAFitRequest(request, { db: h.db, config: h.config, now: init.now ?? NOW });
  return { status: response.status, headers: response.headers, html: await response.text() };
}
/** What the page's button sends. */
const press = (url: string, init: { headers?: Record<string, string>; now?: Date } = {}) =>
  call('POST', url, { body: 'feedback=not-a-fit', ...init });

const feedbackDocs = async () => (await feedbackCollection(h.db).get()).docs.map((d) => ({ id: d.id, ...d.data() }));

describe('GET /not-a-fit', () => {
  it('shows the posting and one button that posts back to the same link, and records nothing (HEAD neither)', async () => {
    const before = await h.dump();
    const page = await call('GET', linkFor());
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toBe(PAGE_POLICY);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // Feed text is text: the title's markup is escaped, never rendered.
    expect(page.html).toContain('WordPress &lt;b&gt;theme&lt;/b&gt; for a bakery');
    expect(page.html).toContain(`<form action="?token=${tokenOf(linkFor())}" method="post">`);
    expect(page.html).toContain('<input type="hidden" name="feedback" value="not-a-fit"/>');
    expect(page.html.match(/<button/g)).toHaveLength(1);
    expect(page.html).toContain('>Not a fit</button>');
    expect(page.html).not.toContain('<script');

    const head = await call('HEAD', linkFor());
    expect(head.status).toBe(200);
    // Scanners prefetch, again and again: still nothing.
    await Promise.all(Array.from({ length: 5 }, () => call('GET', linkFor())));
    expect(await feedbackDocs()).toEqual([]);
    expect(await h.dump()).toEqual(before);
  });

  it('answers any other method 405 with Allow, and records nothing', async () => {
    const page = await call('PUT', linkFor(), { body: 'feedback=not-a-fit' });
    expect(page.status).toBe(405);
    expect(page.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(await feedbackDocs()).toEqual([]);
  });
});

describe('POST /not-a-fit', () => {
  it('records the feedback once, with a plain-text snapshot of the posting, and links to the preferences page', async () => {
    const page = await press(linkFor());
    expect(page.status).toBe(200);
    expect(page.html).toContain('Noted — we won’t count this one as a fit');
    expect(page.html).toContain('is marked as not a fit');
    const preferences = page.html.match(/href="(http:\/\/localhost:3000\/preferences\?token=[^"]+)"/)?.[1];
    expect(preferences).toBe(preferencesUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW }));
    expect(verifyLinkToken(tokenOf(preferences!), { secret: h.config.LINK_SECRET, purpose: 'preferences', now: NOW }).ok).toBe(true);

    const docs = await feedbackDocs();
    expect(docs).toHaveLength(1);
    const [doc] = docs;
    expect(doc.id).toBe(feedbackId(uid, JOB));
    expect(doc).toMatchObject({
      uid,
      jobId: JOB,
      title: 'WordPress <b>theme</b> for a bakery',
      skills: ['WordPress', 'PHP'],
      source: 'sample',
    });
    expect(doc.createdAt).toEqual(NOW);
    expect(doc.expireAt).toEqual(new Date(NOW.getTime() + h.config.RETENTION_DAYS * 86_400_000));
    const { description } = doc;
    expect(description.length).toBeLessThanOrEqual(300);
    expect(description).toMatch(/^Customise a theme\. Contact \[email\]\. Lots of detail\./);
    expect(description).toMatch(/…$/);

    // A second press finds it: same page (saying so), same document.
    const again = await press(linkFor(), { now: new Date(NOW.getTime() + 60_000) });
    expect(again.status).toBe(200);
    expect(again.html).toContain('You had already marked');
    expect(await feedbackDocs()).toEqual(docs);
    // And the link's GET now says so instead of asking again.
    const shown = await call('GET', linkFor());
    expect(shown.html).toContain('You had already marked');
    expect(shown.html).not.toContain('<button');
  });

  it('8 presses at once record exactly one feedback document, and each answers the noted page', async () => {
    const pages = await Promise.all(Array.from({ length: 8 }, () => press(linkFor())));
    expect(pages.map((p) => p.status)).toEqual(Array(8).fill(200));
    expect(pages.filter((p) => p.html.includes('is marked as not a fit'))).toHaveLength(1);
    expect(pages.filter((p) => p.html.includes('You had already marked'))).toHaveLength(7);
    expect((await feedbackDocs()).map((d) => d.id)).toEqual([feedbackId(uid, JOB)]);
  });

  it('a post from another site is refused before anything is read or recorded; the page’s own posts pass', async () => {
    const crossSite = await press(linkFor(), {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    });
    expect(crossSite.status).toBe(403);
    const opaque = await press(linkFor(), {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null', 'sec-fetch-site': 'cross-site' },
    });
    expect(opaque.status).toBe(403);
    expect(await feedbackDocs()).toEqual([]);

    // Our page: no-referrer makes a browser send Origin: null, with Sec-Fetch-Site: same-origin.
    const ours = await press(linkFor(), {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null', 'sec-fetch-site': 'same-origin' },
    });
    expect(ours.status).toBe(200);
    expect(await feedbackDocs()).toHaveLength(1);
  });

  it('a body the button could not have sent is refused: too big 413, not a form 415', async () => {
    const big = await call('POST', linkFor(), {
      body: `feedback=${'x'.repeat(MAX_NOT_A_FIT_BODY_BYTES)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(big.status).toBe(413);
    const json = await call('POST', linkFor(), { body: '{}', headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(415);
    expect(await feedbackDocs()).toEqual([]);
  });
});

describe('nothing is recorded when the link does not hold', () => {
  it.each([
    ['tampered', () => `${linkFor().slice(0, -3)}abc`],
    ['another posting’s id edited in', () => editJob(linkFor(), 'sample_SomeOtherPosting12')],
    ['expired', () => linkFor(JOB, uid, new Date(NOW.getTime() - 401 * 86_400_000))],
    [
      'for another purpose',
      () =>
        preferencesUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW }).replace(
          '/preferences',
          '/not-a-fit',
        ),
    ],
    ['missing', () => `${h.config.APP_URL}/not-a-fit`],
  ])('%s: 400 on GET and POST, with a page saying so', async (_what, url) => {
    for (const method of ['GET', 'POST']) {
      const page = method === 'GET' ? await call('GET', url()) : await press(url());
      expect(page.status, method).toBe(400);
      expect(page.html).toContain('Nothing was recorded.');
      expect(page.html).not.toContain('<button');
    }
    expect(await feedbackDocs()).toEqual([]);
  });

  it('an unsubscribed subscriber: a page that says so (200 on GET, 409 on POST), nothing recorded', async () => {
    await unsubscribeSubscriber(h.db, {
      token: tokenOf(unsubscribeUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW })),
      secret: h.config.LINK_SECRET,
      now: NOW,
    });
    // The emailed link is of the link version before the unsubscribe: expired, with how to get a new one.
    const old = await call('GET', linkFor());
    expect(old.status).toBe(400);
    expect(old.html).toContain('This link has expired — ask for a new one');
    expect((await press(linkFor())).status).toBe(400);
    // One of their current version hears that they left.
    const current = linkFor(JOB, uid, NOW, 1);
    const shown = await call('GET', current);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain('You are unsubscribed');
    expect(shown.html).not.toContain('<button');
    const pressed = await press(current);
    expect(pressed.status).toBe(409);
    expect(pressed.html).toContain('Nothing was recorded.');
    expect(await feedbackDocs()).toEqual([]);
  });

  it('a deleted subscriber: 404, nothing recorded', async () => {
    await h.db.collection('users').doc(uid).delete();
    expect((await call('GET', linkFor())).status).toBe(404);
    const pressed = await press(linkFor());
    expect(pressed.status).toBe(404);
    expect(pressed.html).toContain('No subscription found');
    expect(await feedbackDocs()).toEqual([]);
  });

  it('a posting no longer stored: 410 with a way to the preferences page, nothing recorded (the link has only its id)', async () => {
    await h.db.collection('jobs').doc(JOB).delete();
    for (const page of [await call('GET', linkFor()), await press(linkFor())]) {
      expect(page.status).toBe(410);
      expect(page.html).toContain('This posting is no longer at Scout');
      expect(page.html).toMatch(/href="http:\/\/localhost:3000\/preferences\?token=/);
    }
    expect(await feedbackDocs()).toEqual([]);
  });

  it('a posting that expired after it was marked still shows as marked', async () => {
    await press(linkFor());
    await h.db.collection('jobs').doc(JOB).delete();
    const page = await call('GET', linkFor());
    expect(page.status).toBe(200);
    expect(page.html).toContain('You had already marked');
    expect(page.html).toContain('WordPress &lt;b&gt;theme&lt;/b&gt; for a bakery');
  });
});

/** The link's body with another posting id, under the original signature. */
function editJob(url: string, job: string) {
  const [body, signature] = tokenOf(url).split('.');
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  const edited = Buffer.from(JSON.stringify({ ...claims, job })).toString('base64url');
  return `${h.config.APP_URL}/not-a-fit?token=${edited}.${signature}`;
}
