import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Firestore } from 'firebase-admin/firestore';
import { instrumentFirestore } from '../../scripts/bench/firestore-counter';
import { postingsCollection, type StoredPosting } from '../../lib/feeds/postings-collection';
import { PREVIEW_LIMITS } from '../../lib/preview/preview-limit';
import { PREVIEW_WINDOW_SHARING } from '../../lib/preview/shared-window';
import { PREVIEW_MAX_POSTINGS, type Preview } from '../../lib/preview/preview';
import { handlePreviewRequest } from '../../lib/subscriptions/handle-preview-request';
import { handlePreferencesRequest } from '../../lib/subscriptions/handle-preferences-request';
import { preferencesUrl } from '../../lib/subscribers/link-token';
import { DAY_MS } from '../../lib/store/timestamps';
import { createHarness, type Harness } from '../support/harness';

/**
 * "A preview before saving": POST /api/preview and the forms' Preview buttons, against
 * the emulator. The matching is the run's, over what jobs/ holds for the last 7 days; the read is
 * one query of at most PREVIEW_MAX_POSTINGS documents; the only write is the client's counter.
 */
const NOW = new Date('2026-12-03T12:00:00Z');
const ago = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);

let h: Harness;
beforeEach(async () => {
  // One trusted proxy: each test client is the address it puts in X-Forwarded-For.
  h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
});
afterEach(async () => h.close());

let serial = 0;
function posting(fields: Partial<StoredPosting> & { title: string; fetchedAt: Date }): StoredPosting {
  const id = fields.id ?? `board_${String(++serial).padStart(6, '0')}`;
  return {
    id,
    source: 'board',
    guid: null,
    url: `https://jobs.example.com/${id}`,
    description: '',
    budget: null,
    skills: [],
    publishedAt: fields.fetchedAt,
    matchState: 'matched',
    runId: `run-${fields.fetchedAt.toISOString()}`,
    expireAt: new Date(NOW.getTime() + 30 * DAY_MS),
    canonicalId: id,
    ...fields,
  };
}

async function store(db: Firestore, postings: StoredPosting[]) {
  for (let i = 0; i < postings.length; i += 500) {
    const batch = db.batch();
    for (const p of postings.slice(i, i + 500)) batch.set(postingsCollection(db).doc(p.id), p);
    await batch.commit();
  }
}

type Answer = { status: number; headers: Headers; text: string; json: any };

async function preview(
  body: Record<string, unknown> | string,
  options: { form?: boolean; ip?: string; headers?: Record<string, string>; now?: Date; method?: string } = {},
): Promise<Answer> {
  const encoded =
    typeof body === 'string'
      ? body
      : options.form
        ? new URLSearchParams(
            Object.entries(body).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, String(x)]) : [[k, String(v)]])),
          ).toString()
        : JSON.stringify(body);
  const request = new Request(`${h.config.APP_URL}/api/preview`, {
    method: options.method ?? 'POST',
    headers: {
      'content-type': options.form ? 'application/x-www-form-urlencoded' : 'application/json',
      'x-forwarded-for': options.ip ?? '203.0.113.7',
      ...options.headers,
    },
    body: options.method === 'GET' ? undefined : encoded,
  });
  const response = await handlePreviewRequest(request, { ...h.deps, now: options.now ?? NOW });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null;
  return { status: response.status, headers: response.headers, text, json };
}

const REACT = { keywords: 'react', mode: 'instant' };

describe('the preview runs the matching over the stored postings of the last 7 days', () => {
  it('counts the matches, lists the best five, estimates the emails, and escapes posting text', async () => {
    await store(h.db, [
      posting({ title: 'React developer <script>alert(1)</script>', fetchedAt: ago(1), runId: 'run-1' }),
      posting({ title: 'Senior React engineer', fetchedAt: ago(2), runId: 'run-1' }),
      posting({ title: 'React on WordPress', fetchedAt: ago(3), runId: 'run-2' }),
      posting({ title: 'Rust developer', fetchedAt: ago(4), runId: 'run-2' }),
      posting({ title: 'React lead', fetchedAt: ago(30), runId: 'run-3', budget: { amount: 9000, currency: 'USD', kind: 'fixed' } }),
      posting({ title: 'React, too cheap', fetchedAt: ago(40), runId: 'run-4', budget: { amount: 50, currency: 'USD', kind: 'fixed' } }),
      posting({ title: 'React, last month', fetchedAt: ago(8 * 24), runId: 'run-old' }),
    ]);
    const sent = await preview({ keywords: 'React', excludes: 'wordpress', minFixed: '1,000', mode: 'instant' });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('cache-control')).toBe('no-store');
    const shown = sent.json.preview as Preview;
    expect(shown).toMatchObject({ windowDays: 7, checked: 6, truncated: false, matched: 3 });
    expect(shown.top.map((p) => p.title)).toEqual(['React lead', 'React developer <script>alert(1)</script>', 'Senior React engineer']);
    expect(shown.top[0]).toMatchObject({ budget: '$9,000 fixed', url: expect.stringMatching(/^https:\/\/jobs\.example\.com\//) });
    // Three matches, stored by two runs: two alerts.
    expect(shown.estimate).toEqual({ mode: 'instant', emailsPerWeek: 2, feedItems: 0 });
    // The panel's own markup, for the preferences page's script: every posting's text escaped by React.
    expect(sent.json.html).toContain('<strong>3 postings</strong> of the last 7 days would have matched');
    expect(sent.json.html).toContain('About 2 emails a week');
    expect(sent.json.html).toContain('<mark>React</mark> developer &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(sent.json.html).not.toContain('<script');
  });

  it('follows the minimums per kind: a yearly minimum leaves out lower salaries only, keeps pay it cannot compare and says so', async () => {
    const yearly = (amount: number, maxAmount: number, currency: string | null) => ({
      amount,
      maxAmount,
      currency,
      kind: 'yearly' as const,
    });
    await store(h.db, [
      posting({ title: 'React staff engineer', fetchedAt: ago(1), budget: yearly(150_000, 231_000, 'USD') }),
      posting({ title: 'React support engineer', fetchedAt: ago(2), budget: yearly(60_000, 97_000, 'USD') }),
      posting({ title: 'React engineer in Berlin', fetchedAt: ago(3), budget: yearly(60_000, 80_000, 'EUR') }),
      posting({ title: 'React contract', fetchedAt: ago(4), budget: { amount: 30, currency: 'USD', kind: 'hourly' } }),
    ]);
    const shown = (await preview({ ...REACT, minYearly: '$100k' })).json.preview as Preview;
    expect(shown.top.map((p) => p.title).sort()).toEqual(['React contract', 'React engineer in Berlin', 'React staff engineer']);
    expect(shown.top.find((p) => p.title === 'React engineer in Berlin')?.reasons).toContain(
      'pay in EUR not compared with your $100,000/year minimum',
    );
    // The old field still works: a fixed minimum in USD, which compares none of these.
    expect(((await preview({ ...REACT, minBudget: '500' })).json.preview as Preview).matched).toBe(4);
  });

  it('a job stored once per board counts once: its copies (duplicate) are read but not matched', async () => {
    const canonical = posting({ title: 'React developer', fetchedAt: ago(5) });
    await store(h.db, [
      canonical,
      posting({ title: 'React developer', fetchedAt: ago(4), matchState: 'duplicate', canonicalId: canonical.id }),
      posting({ title: 'React developer', fetchedAt: ago(3), matchState: 'duplicate', canonicalId: canonical.id }),
      posting({ title: 'React engineer', fetchedAt: ago(2), matchState: 'pending' }),
    ]);
    const shown = (await preview(REACT)).json.preview as Preview;
    expect(shown.matched).toBe(2);
    expect(shown.checked).toBe(2);
    expect(new Set(shown.top.map((p) => p.title))).toEqual(new Set(['React developer', 'React engineer']));
  });

  it('the window is the 7 days before now, by when Scout stored the posting: its first instant in, a millisecond earlier out, the future out', async () => {
    const start = new Date(NOW.getTime() - 7 * DAY_MS);
    await store(h.db, [
      posting({ title: 'React, first instant of the window', fetchedAt: start }),
      posting({ title: 'React, a millisecond too old', fetchedAt: new Date(start.getTime() - 1), publishedAt: ago(1) }),
      posting({ title: 'React, stored later than now', fetchedAt: new Date(NOW.getTime() + 60_000) }),
      posting({ title: 'React, now', fetchedAt: NOW }),
    ]);
    const shown = (await preview(REACT)).json.preview as Preview;
    expect(shown.top.map((p) => p.title).sort()).toEqual(['React, first instant of the window', 'React, now']);
  });

  it('the estimate follows the cadence and schedule sent: daily on Mon–Fri in New York, weekly, feed', async () => {
    // 2026-12-03 is a Thursday. Matches: Thu 07:00 NY (before 09:00: Thursday's digest), Sat and Sun (Monday's).
    await store(h.db, [
      posting({ title: 'React Thursday', fetchedAt: new Date('2026-12-03T12:00:00Z') }),
      posting({ title: 'React Saturday', fetchedAt: new Date('2026-11-28T15:00:00Z') }),
      posting({ title: 'React Sunday', fetchedAt: new Date('2026-11-29T15:00:00Z') }),
    ]);
    const schedule = { timezone: 'America/New_York', digestHour: '9', weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'] };
    const daily = (await preview({ keywords: 'react', mode: 'daily', ...schedule })).json.preview as Preview;
    expect(daily.estimate).toEqual({ mode: 'daily', emailsPerWeek: 2, feedItems: 0 });
    const weekly = (await preview({ keywords: 'react', mode: 'weekly', weeklyDay: 'fri' })).json.preview as Preview;
    expect(weekly.estimate).toEqual({ mode: 'weekly', emailsPerWeek: 1, feedItems: 0 });
    const feed = await preview({ keywords: 'react', mode: 'feed' });
    expect(feed.json.preview.estimate).toEqual({ mode: 'feed', emailsPerWeek: 0, feedItems: 3 });
    expect(feed.json.html).toContain('No email; 3 postings in your feed.');
  });
});

describe('what a preview costs', () => {
  it(`reads at most PREVIEW_MAX_POSTINGS (${PREVIEW_MAX_POSTINGS}) postings, in one query, however many the week holds; writes only its counter`, async () => {
    const inWindow = Array.from({ length: PREVIEW_MAX_POSTINGS + 50 }, (_, i) =>
      posting({ title: i % 2 === 0 ? `React role ${i}` : `Go role ${i}`, fetchedAt: new Date(NOW.getTime() - (i + 1) * 60_000) }),
    );
    await store(h.db, inWindow);
    const before = await h.dump(['users', 'jobs', 'deliveries', 'emails', 'feeds', 'locks']);

    const counter = instrumentFirestore();
    let sent: Answer;
    try {
      sent = await preview(REACT);
      const { reads, writes, roundTrips } = counter.snapshot();
      // The postings (exactly the cap), the client's counter and the window-read budget's, each read back after its increment.
      expect(reads).toBe(PREVIEW_MAX_POSTINGS + 2);
      // The two counters' increments; nothing else.
      expect(writes).toBe(2);
      // The increments, their read-backs, the one postings query.
      expect(counter.rpcs()).toEqual({ commit: 2, batchGetDocuments: 2, runQuery: 1 });
      expect(roundTrips).toBe(5);
    } finally {
      counter.restore();
    }
    expect(sent.status).toBe(200);
    // The newest 1,000: half of them React roles; the panel says the count is a floor.
    expect(sent.json.preview).toMatchObject({ checked: PREVIEW_MAX_POSTINGS, truncated: true, matched: PREVIEW_MAX_POSTINGS / 2 });
    expect(sent.json.html).toContain('At least 500 postings');
    expect(sent.json.html).toContain('only the newest 1,000 were checked');

    expect(await h.dump(['users', 'jobs', 'deliveries', 'emails', 'feeds', 'locks'])).toEqual(before);
    const limits = (await h.db.collection('rateLimits').get()).docs.sort((a, b) => a.id.localeCompare(b.id));
    expect(limits.map((d) => ({ kind: d.get('kind'), count: d.get('count') }))).toEqual([
      { kind: 'preview-client-minute', count: 1 },
      { kind: 'preview-window-reads-minute', count: 1 },
    ]);
    expect(limits[0].id).toMatch(/^preview-client_[\w-]{22}_m\d+$/);
    expect(limits[0].id).not.toContain('203.0.113.7');
    expect(limits[1].id).toMatch(/^preview-window-reads_m\d+$/);
  });

  it(`${PREVIEW_LIMITS.perWindow} previews a minute per client; the next is 429 with Retry-After and reads no posting; another client is not held back`, async () => {
    await store(h.db, [posting({ title: 'React developer', fetchedAt: ago(1) })]);
    for (let i = 0; i < PREVIEW_LIMITS.perWindow; i++) expect((await preview(REACT)).status).toBe(200);

    const counter = instrumentFirestore();
    let refused: Answer;
    try {
      refused = await preview(REACT, { now: new Date(NOW.getTime() + 15_000) });
      expect(counter.rpcs()).not.toHaveProperty('runQuery');
    } finally {
      counter.restore();
    }
    expect(refused.status).toBe(429);
    // 12:00:15 in the minute that ends at 12:01:00.
    expect(refused.headers.get('retry-after')).toBe('45');
    expect(refused.json).toMatchObject({ error: 'too many previews from your network; try again later', retryAfterSec: 45 });
    expect(refused.json.html).toContain('Too many previews from your network in the last minute. Try again in 45 seconds.');

    expect((await preview(REACT, { ip: '198.51.100.9' })).status).toBe(200);
    // The next minute, the first client may preview again.
    expect((await preview(REACT, { now: new Date(NOW.getTime() + 60_000) })).status).toBe(200);
  });

  it('a form post over the limit gets the page back with the panel saying so, and Retry-After', async () => {
    for (let i = 0; i < PREVIEW_LIMITS.perWindow; i++) await preview(REACT);
    const page = await preview({ email: 'ada@example.com', ...REACT }, { form: true });
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).toBe('60');
    expect(page.text).toContain('Too many previews from your network in the last minute. Try again in 60 seconds.');
  });
});

describe('what previews cost together', () => {
  it.each([1_000, 100])(
    '1,000 previews in a minute from %i client addresses cost fewer than 2,000 Firestore reads in all',
    async (clients) => {
      const week = Array.from({ length: 200 }, (_, i) =>
        posting({ title: i % 2 === 0 ? `React role ${i}` : `Go role ${i}`, fetchedAt: new Date(NOW.getTime() - (i + 1) * 3_600_000) }),
      );
      await store(h.db, week);
      const counter = instrumentFirestore();
      const statuses: number[] = [];
      try {
        // Twenty at a time, spread over the minute, from `clients` addresses in turn behind the trusted proxy.
        for (let i = 0; i < 1_000; i += 20) {
          const batch = Array.from({ length: 20 }, (_, j) => i + j);
          const answers = await Promise.all(
            batch.map((n) => {
              const client = n % clients;
              return preview(REACT, { ip: `10.${client >> 8}.${client & 255}.1`, now: new Date(NOW.getTime() + n * 59) });
            }),
          );
          statuses.push(...answers.map((a) => a.status));
        }
        // Measured: 1,337 either way — a client counter read per preview, two reads of the window's 167 postings (30 s apart), the budget's counter.
        expect(counter.snapshot().reads).toBeLessThan(2_000);
      } finally {
        counter.restore();
      }
      expect(statuses.every((s) => s === 200)).toBe(true);
    },
    120_000,
  );
});

describe('the window-read budget bounds every instance together', () => {
  it('an instance with no read of its own, once the minute’s budget is spent elsewhere: 503 with Retry-After, nothing read; the next minute reads again', async () => {
    await store(h.db, [posting({ title: 'React developer', fetchedAt: ago(1) })]);
    const minute = Math.floor(NOW.getTime() / PREVIEW_WINDOW_SHARING.budgetWindowMs);
    await h.db
      .collection('rateLimits')
      .doc(`preview-window-reads_m${minute}`)
      .set({
        kind: 'preview-window-reads-minute',
        count: PREVIEW_WINDOW_SHARING.readsPerMinute,
        expireAt: new Date(NOW.getTime() + DAY_MS),
      });

    const counter = instrumentFirestore();
    let busy: Answer;
    try {
      busy = await preview(REACT, { now: new Date(NOW.getTime() + 20_000) });
      expect(counter.rpcs()).not.toHaveProperty('runQuery');
    } finally {
      counter.restore();
    }
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('40');
    expect(busy.json).toMatchObject({ error: 'previews are busy for everyone; try again later', retryAfterSec: 40 });
    expect(busy.json.html).toContain('Previews are busy for everyone right now. Try again in 40 seconds');

    const next = await preview(REACT, { now: new Date(NOW.getTime() + 60_000) });
    expect(next.status).toBe(200);
    expect(next.json.preview.matched).toBe(1);
  });

  it('an instance refused for the minute counts once: its later previews that minute write nothing to the shared counter', async () => {
    await store(h.db, [posting({ title: 'React developer', fetchedAt: ago(1) })]);
    const minute = Math.floor(NOW.getTime() / PREVIEW_WINDOW_SHARING.budgetWindowMs);
    const budget = h.db.collection('rateLimits').doc(`preview-window-reads_m${minute}`);
    await budget.set({
      kind: 'preview-window-reads-minute',
      count: PREVIEW_WINDOW_SHARING.readsPerMinute,
      expireAt: new Date(NOW.getTime() + DAY_MS),
    });
    // The counter is one document every instance writes: a write per preview past the budget would
    // make it the hottest document there is under a crowd of visitors.
    for (let i = 0; i < 5; i++) {
      const answer = await preview(REACT, { now: new Date(NOW.getTime() + 10_000 + i * 5_000), ip: `198.51.100.${i}` });
      expect(answer.status).toBe(503);
    }
    expect((await budget.get()).get('count')).toBe(PREVIEW_WINDOW_SHARING.readsPerMinute + 1);
    // The next minute it asks again.
    expect((await preview(REACT, { now: new Date(NOW.getTime() + 60_000) })).status).toBe(200);
  });

  it('TRUSTED_PROXY_HOPS=0: no per-client limit, which would be every visitor’s; one caller’s previews do not refuse the others', async () => {
    await h.close();
    h = await createHarness();
    await store(h.db, [posting({ title: 'React developer', fetchedAt: ago(1) })]);
    for (let i = 0; i <= PREVIEW_LIMITS.perWindow; i++) expect((await preview(REACT, { ip: `198.51.100.${i}` })).status).toBe(200);
    expect((await preview(REACT, { ip: '203.0.113.200' })).status).toBe(200);
    const kinds = (await h.db.collection('rateLimits').get()).docs.map((d) => d.get('kind'));
    expect(kinds).toEqual(['preview-window-reads-minute']);
  });
});

describe('a written query', () => {
  it('is previewed as saving would store it: its matches, their reasons naming the clauses, the matched words marked and escaped', async () => {
    await store(h.db, [
      posting({ title: 'Senior <b>React</b> engineer', fetchedAt: ago(1), remote: true, description: 'Our React & TypeScript front end.' }),
      posting({ title: 'Vue developer', fetchedAt: ago(2), location: 'Remote (EU)' }),
      posting({ title: 'React on WordPress', fetchedAt: ago(3), remote: true }),
      posting({ title: 'React developer, Berlin office', fetchedAt: ago(4), remote: false }),
      posting({ title: 'Backend engineer', fetchedAt: ago(5), remote: true, description: 'behind a react app' }),
    ]);
    const sent = await preview({ keywords: '', query: 'title:(react OR vue) remote:yes -wordpress', mode: 'instant' });
    expect(sent.status).toBe(200);
    const shown = sent.json.preview as Preview;
    expect(shown.matched).toBe(2);
    const byTitle = Object.fromEntries(shown.top.map((p) => [p.title, p]));
    expect(byTitle['Senior <b>React</b> engineer']).toMatchObject({ marks: { title: ['react'], text: [] } });
    expect(byTitle['Senior <b>React</b> engineer'].reasons).toEqual(expect.arrayContaining(['matched title:react', 'matched remote:yes']));
    expect(byTitle['Vue developer']).toMatchObject({ marks: { title: ['vue'], text: [] } });
    // The words marked in the panel, every posting's text escaped around them.
    expect(sent.json.html).toContain('Senior &lt;b&gt;<mark>React</mark>&lt;/b&gt; engineer');
    expect(sent.json.html).toContain('<mark>Vue</mark> developer');
    expect(sent.json.html).not.toContain('<b>');
    // A title: term marks the title only, not the same word in the text.
    expect(sent.json.html).toContain('Our React &amp; TypeScript front end.');
  });

  it('keywords mark their words in the title and the excerpt', async () => {
    await store(h.db, [posting({ title: 'Rust engineer', fetchedAt: ago(1), description: 'Rust services, some Go and rust-analyzer.' })]);
    const sent = await preview({ keywords: 'rust, kotlin', mode: 'instant' });
    expect(sent.json.preview.top[0].marks).toEqual({ title: ['rust'], text: ['rust'] });
    expect(sent.json.html).toContain('<mark>Rust</mark> engineer');
    expect(sent.json.html).toContain('<mark>Rust</mark> services, some Go and <mark>rust</mark>-analyzer.');
  });

  it('one that does not parse: 400 with the field’s message and where it goes wrong, nothing read', async () => {
    const counter = instrumentFirestore();
    let sent: Answer;
    try {
      sent = await preview({ keywords: 'react', query: '  react (vue OR angular', mode: 'instant' });
      expect(counter.snapshot()).toMatchObject({ reads: 0, writes: 0 });
    } finally {
      counter.restore();
    }
    expect(sent.status).toBe(400);
    expect(sent.json).toMatchObject({ error: 'invalid preview', fields: { query: '`(` at 6 is never closed' }, queryAt: 6 });
    expect(sent.json.html).toContain('No preview yet. Query: `(` at 6 is never closed.');
    // Another field's error carries no position.
    const other = await preview({ keywords: 'react', query: 'react', mode: 'hourly' });
    expect(other.status).toBe(400);
    expect(other.json).not.toHaveProperty('queryAt');
  });

  it('the lists’ own text, as the form script writes it, previews as the lists even above a typed query’s 30 clauses', async () => {
    await store(h.db, [posting({ title: 'word7 developer', fetchedAt: ago(1) })]);
    const keywords = Array.from({ length: 25 }, (_, i) => `word${i}`);
    const excludes = Array.from({ length: 10 }, (_, i) => `not${i}`);
    const query = `${keywords.join(' OR ')} ${excludes.map((e) => `-${e}`).join(' ')}`;
    const sent = await preview({ keywords: keywords.join(', '), excludes: excludes.join(', '), query, mode: 'instant' });
    expect(sent.status).toBe(200);
    expect(sent.json.preview.matched).toBe(1);
  });

  it('a form post with a query that does not parse: the signup page, the error under the field and what it is at marked', async () => {
    const page = await preview({ email: '', keywords: '', query: 'react <b>', mode: 'instant' }, { form: true });
    expect(page.status).toBe(400);
    expect(page.text).toMatch(/<p id="signup-query-error" class="field-error">.*`&lt;b&gt;` at 6: each term may use only/);
    expect(page.text).toContain('<code>react <mark>&lt;b&gt;</mark></code>');
    expect(page.text).not.toContain('<b>');
  });
});

describe('what a preview refuses', () => {
  it('bad fields: 400 with the same message per field as signup, and nothing read or written', async () => {
    const counter = instrumentFirestore();
    let sent: Answer;
    try {
      sent = await preview({
        keywords: ' , ',
        excludes: 'x'.repeat(61),
        minYearly: 'lots',
        minCurrency: 'dollars',
        mode: 'hourly',
        timezone: 'Mars/Olympus_Mons',
        digestHour: '25',
        weekdays: ['mon', 'someday'],
        weeklyDay: 'caturday',
      });
      expect(counter.snapshot()).toEqual({ reads: 0, writes: 0, roundTrips: 0 });
    } finally {
      counter.restore();
    }
    expect(sent.status).toBe(400);
    expect(sent.json.error).toBe('invalid preview');
    expect(sent.json.fields).toEqual({
      keywords: 'enter at least one keyword',
      excludes: 'each exclude must be at most 60 characters',
      minYearly: 'must be an amount, like 500, $1,500 or 150k',
      minCurrency: 'must be a currency code, like USD or EUR',
      mode: 'choose instant, daily, weekly or feed',
      timezone: 'must be a time zone name, like Europe/Berlin',
      digestHour: 'must be an hour from 0 to 23',
      weekdays: 'must be a weekday: mon, tue, wed, thu, fri, sat or sun',
      weeklyDay: 'must be a weekday: mon, tue, wed, thu, fri, sat or sun',
    });
    expect(sent.json.html).toContain('No preview yet. Keywords: enter at least one keyword.');
    expect((await h.db.collection('rateLimits').get()).size).toBe(0);
  });

  it('a body that is not an object, not JSON, or not a form: 400, 400, 415', async () => {
    expect((await preview('[1,2]')).json.fields).toEqual({ body: expect.stringContaining('must be an object') });
    expect((await preview('{not json')).status).toBe(400);
    const text = await preview('keywords=react', { headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
  });

  it('another site’s page: 403 before anything is read; GET: 405', async () => {
    const cross = await preview(REACT, { headers: { origin: 'https://evil.example' } });
    expect(cross.status).toBe(403);
    expect((await h.db.collection('rateLimits').get()).size).toBe(0);
    const get = await preview(REACT, { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});

describe('the Preview buttons without JavaScript', () => {
  it('the signup form’s: the same form back with everything as typed, the panel filled, still posting to /api/signup', async () => {
    await store(h.db, [posting({ title: 'Svelte & <b>TypeScript</b> role', fetchedAt: ago(3) })]);
    const page = await preview(
      {
        email: 'ada@example.com',
        keywords: 'svelte, typescript',
        excludes: 'php',
        minBudget: '',
        about: 'Front ends.',
        mode: 'daily',
        timezone: 'Europe/Berlin',
        digestHour: '7',
        weekdays: ['mon', 'wed'],
        weeklyDay: 'mon',
      },
      { form: true, headers: { origin: 'null', 'sec-fetch-site': 'same-origin' } },
    );
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<h1>What Scout would have sent you</h1>');
    expect(page.text).toContain('action="/api/signup"');
    expect(page.text).toMatch(/<input[^>]*name="email"[^>]*value="ada@example.com"/);
    expect(page.text).toMatch(/<textarea[^>]*name="keywords"[^>]*>svelte, typescript<\/textarea>/);
    expect(page.text).toMatch(/<input[^>]*name="mode"[^>]*checked=""[^>]*value="daily"/);
    expect(page.text).toContain('<option value="Europe/Berlin" selected="">');
    expect(page.text).toContain('<option value="7" selected="">07:00</option>');
    expect(page.text).toMatch(/<input[^>]*id="signup-weekdays-wed"[^>]*checked=""/);
    expect(page.text).not.toMatch(/<input[^>]*id="signup-weekdays-tue"[^>]*checked=""/);
    expect(page.text).toContain('<strong>1 posting</strong> of the last 7 days would have matched.');
    expect(page.text).toContain('<mark>Svelte</mark> &amp; &lt;b&gt;<mark>TypeScript</mark>&lt;/b&gt; role');
    expect(page.text).toContain('About 1 email a week');
    expect(page.text).not.toContain('<script');
    expect((await h.db.collection('users').get()).size).toBe(0);
  });

  it('the signup form’s, with a field a preview cannot read: 400, the message next to the field, the values kept', async () => {
    const page = await preview({ email: '', keywords: '', mode: 'instant', digestHour: '99' }, { form: true });
    expect(page.status).toBe(400);
    expect(page.text).toContain('<title>Error: Preview · Scout</title>');
    expect(page.text).toMatch(/<p id="signup-keywords-error" class="field-error">.*Enter at least one keyword<\/p>/);
    expect(page.text).toMatch(/<p id="signup-digestHour-error" class="field-error">.*Must be an hour from 0 to 23<\/p>/);
    expect(page.text).toMatch(/<select id="signup-digestHour"[^>]*aria-invalid="true"/);
    expect(page.text).toContain('No preview yet. Keywords: enter at least one keyword.');
  });

  it('the preferences form’s: the page as typed with the panel filled; nothing saved', async () => {
    await store(h.db, [
      posting({ title: 'Kotlin developer', fetchedAt: ago(3) }),
      posting({ title: 'React developer', fetchedAt: ago(3) }),
    ]);
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    const stored = (await h.db.collection('users').doc(uid).get()).data();
    const url = preferencesUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW });
    const response = await handlePreferencesRequest(
      new Request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.7' },
        body: new URLSearchParams({
          action: 'save',
          keywords: 'kotlin',
          excludes: '',
          minBudget: '',
          mode: 'weekly',
          preview: '1',
        }).toString(),
      }),
      { db: h.db, config: h.config, now: NOW },
    );
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toMatch(/<textarea[^>]*name="keywords"[^>]*>kotlin<\/textarea>/);
    expect(html).toContain('<strong>1 posting</strong> of the last 7 days would have matched.');
    expect(html).toContain('<mark>Kotlin</mark> developer');
    expect(html).toContain('About 1 email a week: your weekly digest.');
    // Still what is stored, in words; nothing saved.
    expect(html).toContain('Scout sends you an email as soon as a posting fits.');
    expect((await h.db.collection('users').doc(uid).get()).data()).toEqual(stored);
  });
});
