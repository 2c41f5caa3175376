import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handlePreferencesRequest } from '../../lib/subscriptions/handle-preferences-request';
import { preferencesUrl } from '../../lib/subscribers/link-token';
import { keywordQueryText } from '../../lib/query/subscriber-query';
import { createHarness, type Harness } from '../support/harness';
import { postSignup } from './signup-fixture';

/**
 * "Advanced: write a query" on the two forms, without a script (the server decides and renders
 * everything the script improves on): shown open when the query says more than the lists, its parse
 * error next to it with the character marked and linked from the error summary, and the lists' own
 * text (what the script writes into it as the keywords are typed) read as the lists.
 */
const NOW = new Date('2026-11-30T06:00:00Z');
let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const linkFor = (uid: string) => preferencesUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW });

async function page(url: string, fields?: Record<string, string>): Promise<{ status: number; html: string }> {
  const request = fields
    ? new Request(url, {
        method: 'POST',
        body: new URLSearchParams({ action: 'save', mode: 'daily', ...fields }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
    : new Request(url);
  const response = await handlePreferencesRequest(request, { db: h.db, config: h.config, now: NOW });
  return { status: response.status, html: await response.text() };
}

const details = (html: string) => html.match(/<details[^>]*class="field query-field"[^>]*>/)?.[0] ?? '';
const queryTextarea = (html: string, id: string) => html.match(new RegExp(`<textarea[^>]*id="${id}"[^>]*>([^<]*)</textarea>`));
const userDoc = async (uid: string) => (await h.db.collection('users').doc(uid).get()).data()!;
/** 26 keywords and 10 excludes: within the lists' bounds, above a typed query's 30 clauses. */
const MANY = { keywords: Array.from({ length: 25 }, (_, i) => `word${i}`), excludes: Array.from({ length: 10 }, (_, i) => `not${i}`) };

describe('the preferences page', () => {
  it('a keyword subscriber: the field closed, holding the lists’ query; no note', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react', 'react native'], excludes: ['php'], mode: 'daily' });
    const { html } = await page(linkFor(uid));
    expect(details(html)).not.toContain('open');
    expect(queryTextarea(html, 'query')?.[1]).toBe('react OR &quot;react native&quot; -php');
    expect(html).not.toContain('id="query-note"');
  });

  it('a written query: the field open with its text, and the note that editing the lists replaces it', async () => {
    const uid = await h.subscribe({
      email: 'ada@example.com',
      keywords: ['react'],
      query: 'title:(react OR vue) remote:yes',
      mode: 'daily',
    });
    const { html } = await page(linkFor(uid));
    expect(details(html)).toContain('open=""');
    expect(queryTextarea(html, 'query')?.[1]).toBe('title:(react OR vue) remote:yes');
    expect(html).toMatch(/<textarea[^>]*name="keywords"[^>]*>react, vue<\/textarea>/);
    expect(html).toMatch(/<p id="query-note" class="hint query-note"[^>]*>Your query below says more than keywords and excludes can\./);
  });

  it('a query that does not parse: 400, the error next to the field with its character marked, linked from the summary; nothing saved', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    const before = await userDoc(uid);
    const { status, html } = await page(linkFor(uid), { keywords: 'react', excludes: '', query: 'react (vue OR angular' });
    expect(status).toBe(400);
    expect(html).toContain('Nothing was saved: one field needs fixing');
    expect(html).toContain('<a href="#query">Advanced: write a query: `(` at 6 is never closed</a>');
    expect(details(html)).toContain('open=""');
    expect(html).toMatch(
      /<p id="query-error" class="field-error"><span class="visually-hidden">Error: <\/span>`\(` at 6 is never closed<\/p>/,
    );
    expect(html).toContain(
      '<p id="query-at" class="query-at"><span class="visually-hidden">Here: </span><code>react <mark>(</mark>vue OR angular</code></p>',
    );
    const textarea = html.match(/<textarea[^>]*id="query"[^>]*>/)![0];
    expect(textarea).toContain('aria-invalid="true"');
    expect(textarea).toContain('aria-describedby="query-hint query-error query-at"');
    expect(queryTextarea(html, 'query')?.[1]).toBe('react (vue OR angular');
    expect(await userDoc(uid)).toEqual(before);
  });

  it('the query a page’s script writes as the lists are typed is read as the lists, even above a typed query’s bounds', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'daily' });
    const query = keywordQueryText(MANY.keywords, MANY.excludes);
    const { status } = await page(linkFor(uid), { keywords: MANY.keywords.join(', '), excludes: MANY.excludes.join(', '), query });
    expect(status).toBe(200);
    expect(await userDoc(uid)).toMatchObject({ ...MANY, query });
  });
});

describe('the signup form', () => {
  it('a query that does not parse: the form again, the field open with the error and its character marked', async () => {
    const answer = await postSignup(
      h,
      { email: 'ada@example.com', keywords: '', query: 'react OR', mode: 'instant' },
      { now: NOW, form: true },
    );
    expect(answer.status).toBe(400);
    expect(details(answer.html)).toContain('open=""');
    expect(answer.html).toContain('Expected a term after OR at 6');
    expect(answer.html).toContain('<code>react <mark>OR</mark></code>');
    expect(answer.html).toMatch(/<textarea[^>]*id="signup-query"[^>]*aria-invalid="true"[^>]*autofocus=""/);
    expect((await h.db.collection('users').get()).size).toBe(0);
  });

  it('the lists’ own query is the lists, above a typed query’s bounds; a written one is stored as written', async () => {
    const lists = await postSignup(
      h,
      {
        email: 'ada@example.com',
        keywords: MANY.keywords.join(','),
        excludes: MANY.excludes.join(','),
        query: keywordQueryText(MANY.keywords, MANY.excludes),
        mode: 'instant',
      },
      { now: NOW },
    );
    expect(lists.status).toBe(202);
    const written = await postSignup(
      h,
      { email: 'lin@example.com', keywords: '', query: 'title:rust remote:yes', mode: 'instant' },
      { now: NOW },
    );
    expect(written.status).toBe(202);
    const users = Object.fromEntries((await h.db.collection('users').get()).docs.map((doc) => [doc.get('email'), doc.data()]));
    expect(users['ada@example.com']).toMatchObject(MANY);
    expect(users['lin@example.com']).toMatchObject({ query: 'title:rust remote:yes', keywords: ['rust'], excludes: [] });
  });
});
