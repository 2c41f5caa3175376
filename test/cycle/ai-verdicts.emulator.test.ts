import { randomBytes } from 'node:crypto';
import type { Tuning } from '../../lib/runtime/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelFake, type ModelFake, type ModelFault, type RecordedRequest } from '../../scripts/model-fake/server';
import type { TestItem } from '../../scripts/sample-feed/rss-feed';
import { deliveriesCollection, type Delivery } from '../../lib/ledger/delivery';
import { matchesCollection } from '../../lib/verdicts/match-verdict';
import { feedbackCollection, feedbackId } from '../../lib/ledger/feedback';
import { createHarness, type Harness } from '../support/harness';

/**
 * The verdict stage in the cycle: with a model configured the keyword match is the
 * shortlist and the model decides. Instant subscribers are judged before the claim, daily ones at
 * the flush; a verdict is made once per pair however often the cycle runs; every model fault falls
 * back to keywords without losing or duplicating an email. The fake model scores by word overlap
 * (scripts/model-fake/scoring.ts): fit = 100 × matched terms / terms, where the terms are the
 * keywords and the telling words of "about". Requests are counted by the fake, per API key.
 */

let fake: ModelFake;
beforeAll(async () => {
  fake = await startModelFake({ port: 0 });
});
afterAll(async () => fake.close());

const EARLY = '2026-11-30T06:00:00Z';
const at = new Date(EARLY).toUTCString();

/** Keywords ['react'], about "dashboard" → terms react, dashboard: both → 100, react alone → 50. */
const ITEMS: TestItem[] = [
  { guid: 'g-1', title: 'React dashboard for a logistics team', description: 'Charts and tables.', pubDate: at },
  { guid: 'g-2', title: 'React landing page', description: 'A marketing site.', pubDate: at },
  { guid: 'g-3', title: 'Admin dashboard in React', description: 'Internal tool.', pubDate: at },
  { guid: 'g-4', title: 'Django API', description: 'No frontend at all.', pubDate: at },
];

type World = Harness & { apiKey: string; requests(): Promise<RecordedRequest[]>; faults(f: ModelFault[]): void };

async function world(overrides: Record<string, string> = {}, tuning: Tuning = {}): Promise<World> {
  const apiKey = `sk-cycle-${randomBytes(6).toString('hex')}`;
  const h = await createHarness(
    {
      AI_BASE_URL: fake.baseUrl,
      AI_API_KEY: apiKey,
      AI_MODEL: 'scout-fake-1',
      ...overrides,
    },
    { AI_TIMEOUT_MS: 2000, ...tuning },
  );
  return Object.assign(h, {
    apiKey,
    requests: async () => fake.requests(apiKey),
    faults: (f: ModelFault[]) => fake.setFaults(apiKey, f),
  });
}

const subscriber = (email: string, mode: 'instant' | 'daily', extra: Record<string, unknown> = {}) => ({
  email,
  keywords: ['react'],
  mode,
  about: 'dashboard',
  ...extra,
});

/** The posting ids each recorded request asked about, from the last user message (the wire contract). */
const askedIds = (requests: RecordedRequest[]) =>
  requests.flatMap((r) => {
    const messages = (r.body as { messages: { content: string }[] }).messages;
    return [(JSON.parse(messages.at(-1)!.content) as { posting: { id: string } }).posting.id];
  });

/** Each delivery, by its posting's title. */
const byTitle = async (h: Harness): Promise<Map<string, Delivery>> => {
  const jobs = await h.db.collection('jobs').get();
  const titles = new Map(jobs.docs.map((d) => [d.id, d.get('title') as string]));
  const snap = await deliveriesCollection(h.db).get();
  return new Map(snap.docs.map((d) => [titles.get(d.data().jobId)!, d.data()]));
};

describe('instant subscribers are judged in the run that matches, before the claim', () => {
  it('stores a verdict per (subscriber, posting) at matches/{uid}_{jobId}, sends the fits with their reasons, and closes the rest as not_a_fit', async () => {
    const h = await world();
    try {
      const uid = await h.subscribe(subscriber('ada@example.com', 'instant'));
      h.serveFeed(ITEMS);
      const run = await h.cron({ now: EARLY });
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({ matches: 3, instantEmails: 1, instantDeliveries: 2 });
      // One posting a request: three pairs judged, three calls.
      expect(run.body.model).toMatchObject({ calls: 3, judged: 3, notAFit: 1, fallbacks: {} });

      const verdicts = (await matchesCollection(h.db).get()).docs.map((d) => ({ id: d.id, ...d.data() }));
      expect(verdicts).toHaveLength(3);
      for (const v of verdicts) {
        expect(v.id).toBe(`${uid}_${v.jobId}`);
        expect(v).toMatchObject({ uid, state: 'scored', model: 'scout-fake-1', profileVersion: 1 });
      }

      const d = await byTitle(h);
      expect(d.get('React dashboard for a logistics team')).toMatchObject({ status: 'sending', fit: 100, aiFallback: null });
      expect(d.get('Admin dashboard in React')).toMatchObject({ fit: 100 });
      expect(d.get('React landing page')).toMatchObject({ status: 'skipped', reason: 'not_a_fit', fit: 50 });
      expect(d.get('React landing page')!.fitReason).toContain('"react"');

      const [mail] = await h.inbox();
      expect(mail.subject).toMatch(/^2 new: /);
      expect(mail.text).toContain('AI fit 100/100: Matches "react", "dashboard" (2 of 2 terms).');
      expect(mail.text).toContain('Why: “react” in the title');
      expect(mail.text).not.toContain('landing page');
      expect(mail.text).not.toContain('keywords alone');
    } finally {
      await h.close();
    }
  });

  it('a posting judged at or above the subscriber’s own fitThreshold is sent (threshold 50 lets the 50 through)', async () => {
    const h = await world();
    try {
      await h.subscribe(subscriber('ada@example.com', 'instant', { fitThreshold: 50 }));
      h.serveFeed(ITEMS);
      const run = await h.cron({ now: EARLY });
      expect(run.body).toMatchObject({ instantDeliveries: 3 });
      expect((await byTitle(h)).get('React landing page')).toMatchObject({ status: 'sending', fit: 50 });
    } finally {
      await h.close();
    }
  });
});

describe('scored once: the model is asked once per (subscriber, posting), however often the cycle runs', () => {
  it('a second run asks nothing and sends nothing', async () => {
    const h = await world();
    try {
      await h.subscribe(subscriber('ada@example.com', 'instant'));
      await h.subscribe(subscriber('bob@example.com', 'instant', { about: 'logistics' }));
      h.serveFeed(ITEMS);
      await h.cron({ now: EARLY });
      // 3 react postings × 2 subscribers, one request each.
      const first = await h.requests();
      expect(first).toHaveLength(6);
      const second = await h.cron({ now: '2026-11-30T06:15:00Z' });
      expect(second.body).toMatchObject({ matches: 0, emailsSent: 0 });
      expect(await h.requests()).toHaveLength(6);
      expect(await h.inbox()).toHaveLength(2);
    } finally {
      await h.close();
    }
  });

  it('8 concurrent runs (lock defeated) ask about each pair exactly once and send one alert each', async () => {
    const h = await world();
    try {
      await h.subscribe(subscriber('ada@example.com', 'instant'));
      await h.subscribe(subscriber('bob@example.com', 'instant', { about: 'logistics' }));
      h.serveFeed(ITEMS);
      await Promise.all(Array.from({ length: 8 }, (_, i) => h.run({ now: EARLY, lockName: `race-${i}` })));
      const asked = askedIds(await h.requests());
      // 3 react postings × 2 subscribers, each asked once: no pair twice.
      expect(asked).toHaveLength(6);
      expect(new Set(asked).size).toBe(3);
      const mail = await h.inbox();
      expect(mail.map((m) => m.to[0]).sort()).toEqual(['ada@example.com', 'bob@example.com']);
      expect((await matchesCollection(h.db).get()).docs.every((d) => d.data().state === 'scored')).toBe(true);
    } finally {
      await h.close();
    }
  });
});

describe('daily subscribers are judged once, at the flush, over their queued items', () => {
  it('queues without asking, then one call per item at the flush; the digest ranks by fit and leaves out the not-a-fit', async () => {
    const h = await world();
    try {
      await h.subscribe(subscriber('dee@example.com', 'daily'));
      h.serveFeed(ITEMS);
      const early = await h.cron({ now: EARLY });
      expect(early.body).toMatchObject({ queued: 3 });
      expect(await h.requests()).toHaveLength(0);

      const flush = await h.cron({ now: '2026-11-30T08:05:00Z' });
      expect(flush.body).toMatchObject({ digests: 1 });
      expect(flush.body.model).toMatchObject({ calls: 3, judged: 3, notAFit: 1 });
      expect(askedIds(await h.requests())).toHaveLength(3);

      const [digest] = await h.inbox();
      expect(digest.text).toContain('AI fit 100/100');
      expect(digest.text).not.toContain('landing page');
      const d = await byTitle(h);
      expect(d.get('React landing page')).toMatchObject({ status: 'skipped', reason: 'not_a_fit', fit: 50 });
      expect(d.get('Admin dashboard in React')!.fit).toBe(100);

      // A later run the same day: no new request, no second digest.
      await h.cron({ now: '2026-11-30T08:20:00Z' });
      expect(await h.requests()).toHaveLength(3);
      expect(await h.inbox()).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});

describe('the digest says in one line what the keywords matched and it leaves out, and why', () => {
  it('counts the postings under the minimum, the excluded ones and the not-a-fit ones, and links to the preferences page', async () => {
    const h = await world();
    try {
      await h.subscribe(subscriber('dee@example.com', 'daily', { minBudget: 500, excludes: ['wordpress'] }));
      h.serveFeed([
        ...ITEMS,
        { guid: 'g-5', title: 'React dashboard, small fix', description: 'Budget: $200', pubDate: at },
        { guid: 'g-6', title: 'React dashboard on WordPress', description: 'A plugin.', pubDate: at },
        { guid: 'g-7', title: 'React and WordPress', description: 'Theme work.', pubDate: at },
      ]);
      await h.cron({ now: EARLY });
      await h.cron({ now: '2026-11-30T08:05:00Z' });
      const [digest] = await h.inbox();
      expect(digest.text).toContain(
        '4 more matched your keywords: 1 under your minimum pay ($500 fixed-price), 2 with a word you exclude, 1 judged not a fit.',
      );
      expect(digest.text).toMatch(/4 more matched your keywords: [^\n]* Change what you get: http:\/\/localhost:3000\/preferences\?token=/);
      expect(digest.html).toContain('Change your preferences');
      // Near misses were never asked about: only the three real keyword matches went to the model.
      expect(askedIds(await h.requests())).toHaveLength(3);
    } finally {
      await h.close();
    }
  });

  it('with the model off, the line still counts the excludes and the budget floor; 4 overlapping runs count each posting once', async () => {
    const h = await createHarness();
    try {
      await h.subscribe(subscriber('dee@example.com', 'daily', { minBudget: 500, excludes: ['wordpress'] }));
      h.serveFeed([...ITEMS, { guid: 'g-5', title: 'React dashboard, small fix', description: 'Budget: $200', pubDate: at }]);
      const early = await Promise.all(Array.from({ length: 4 }, (_, i) => h.run({ now: EARLY, lockName: `overlap-${i}` })));
      expect(early.reduce((sum, run) => sum + run.queued, 0)).toBe(3);
      expect(early[0].model).toBeNull();
      // Not a delivery: the near miss lives only in the digest's count.
      expect((await h.db.collection('deliveries').get()).size).toBe(3);
      await h.cron({ now: '2026-11-30T08:05:00Z' });
      const [digest] = await h.inbox();
      expect(digest.text).toContain('1 more matched your keywords: 1 under your minimum pay ($500 fixed-price).');
      expect(digest.text).not.toMatch(/AI fit|AI review/);
    } finally {
      await h.close();
    }
  });
});

describe('faults never cost a delivery: every model fault falls back to keywords', () => {
  const cases: [string, ModelFault, string][] = [
    ['500', { mode: '500' }, 'server-error'],
    ['429 without a usable wait', { mode: '429', retryAfterSeconds: 120 }, 'rate-limited'],
    ['malformed JSON', { mode: 'malformed' }, 'malformed'],
    ['a refusal', { mode: 'refusal' }, 'refusal'],
    ['a dropped connection', { mode: 'drop' }, 'unreachable'],
    ['slower than AI_TIMEOUT_MS', { mode: 'slow', ms: 5_000 }, 'timeout'],
  ];
  it.each(cases)(
    '%s: every keyword match is sent once, the email says keywords decided, the run counts the fault',
    async (_name, fault, reason) => {
      const h = await world();
      try {
        await h.subscribe(subscriber('ada@example.com', 'instant'));
        h.faults([fault]);
        h.serveFeed(ITEMS);
        const run = await h.cron({ now: EARLY });
        expect(run.status).toBe(200);
        expect(run.body).toMatchObject({ instantDeliveries: 3, instantEmails: 1 });
        expect(run.body.model.fallbacks).toEqual({ [reason]: 3 });
        const [mail] = await h.inbox();
        expect(mail.text).toContain('Our AI review did not answer, so these were matched on your keywords alone.');
        expect(mail.text).not.toContain('AI fit');
        // No verdict is stored for a fault: a later run may ask again, but the pairs are claimed and nothing is re-sent.
        expect((await matchesCollection(h.db).get()).size).toBe(0);
        h.faults([]);
        await h.cron({ now: '2026-11-30T06:15:00Z' });
        expect(await h.inbox()).toHaveLength(1);
      } finally {
        await h.close();
      }
    },
  );

  it('a 429 whose Retry-After fits the run is waited out and retried: the verdicts are used', async () => {
    const h = await world();
    try {
      await h.subscribe(subscriber('ada@example.com', 'instant'));
      h.faults([{ mode: '429', retryAfterSeconds: 1, count: 1 }]);
      h.serveFeed(ITEMS);
      const run = await h.cron({ now: EARLY });
      // Three postings, one a request; the first one asked meets the 429 and is retried.
      expect(run.body.model).toMatchObject({ calls: 4, judged: 3, fallbacks: {} });
      expect(run.body).toMatchObject({ instantDeliveries: 2 });
      expect((await h.requests()).map((r) => r.fault)).toEqual(['429', null, null, null]);
    } finally {
      await h.close();
    }
  });
});

describe('budget: the per-run call cap is a hard limit, and past it keywords decide', () => {
  it('with AI_MAX_CALLS_PER_RUN=3 (a call is a posting), the second subscriber is decided by keywords and told so; a later run sends nothing twice', async () => {
    const h = await world({}, { AI_MAX_CALLS_PER_RUN: 3, AI_CONCURRENCY: 1 });
    try {
      await h.subscribe(subscriber('ada@example.com', 'instant'));
      await h.subscribe(subscriber('bob@example.com', 'instant'));
      h.serveFeed(ITEMS);
      const run = await h.cron({ now: EARLY });
      expect(await h.requests()).toHaveLength(3);
      expect(run.body.model).toMatchObject({ calls: 3, judged: 3, fallbacks: { budget: 3 } });
      const mail = await h.inbox();
      expect(mail).toHaveLength(2);
      const notes = mail.map(
        (m) => !!m.text?.includes("Today's AI review budget is used up, so these were matched on your keywords alone."),
      );
      expect(notes.sort()).toEqual([false, true]);

      await h.cron({ now: '2026-11-30T06:15:00Z' });
      expect(await h.inbox()).toHaveLength(2);
    } finally {
      await h.close();
    }
  });

  it('past AI_DAILY_TOKEN_BUDGET nothing is asked at all', async () => {
    const h = await world({ AI_DAILY_TOKEN_BUDGET: '1000' });
    try {
      await h.db.collection('aiUsage').doc('2026-11-30').set({ day: '2026-11-30', tokens: 5_000 });
      await h.subscribe(subscriber('ada@example.com', 'instant'));
      h.serveFeed(ITEMS);
      const run = await h.cron({ now: EARLY });
      expect(await h.requests()).toHaveLength(0);
      expect(run.body.model).toMatchObject({ calls: 0, fallbacks: { budget: 3 } });
      expect(run.body).toMatchObject({ instantDeliveries: 3 });
    } finally {
      await h.close();
    }
  });
});

describe('"not a fit" feedback reaches the model as counter-examples', () => {
  it('the subscriber’s latest not-a-fit postings go in a message of their own before the last, which stays {subscriber, postings}', async () => {
    const h = await world();
    try {
      const uid = await h.subscribe(subscriber('ada@example.com', 'instant'));
      await feedbackCollection(h.db)
        .doc(feedbackId(uid, 'old_1'))
        .set({
          uid,
          jobId: 'old_1',
          title: 'React WordPress theme',
          description: 'Theme tweaks for a blog.',
          skills: [],
          source: 'old',
          createdAt: new Date('2026-11-29T00:00:00Z'),
          expireAt: new Date('2026-12-29T00:00:00Z'),
        });
      h.serveFeed(ITEMS);
      await h.cron({ now: EARLY });
      const [request] = await h.requests();
      const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
      expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'user', 'user']);
      expect(Object.keys(JSON.parse(messages[1].content))).toEqual(['subscriber']);
      expect(JSON.parse(messages[2].content)).toEqual({
        notAFit: [{ title: 'React WordPress theme', description: 'Theme tweaks for a blog.' }],
      });
      expect(Object.keys(JSON.parse(messages[3].content))).toEqual(['posting']);
      expect(JSON.stringify(request.body)).not.toContain(uid);
    } finally {
      await h.close();
    }
  });

  it('every item of an email carries its own signed Not-a-fit link', async () => {
    const h = await world();
    try {
      await h.subscribe(subscriber('ada@example.com', 'instant'));
      h.serveFeed(ITEMS);
      await h.cron({ now: EARLY });
      const [mail] = await h.inbox();
      const links = mail.text!.match(/Not a fit\? http:\/\/localhost:3000\/not-a-fit\?token=[\w.-]+/g) ?? [];
      expect(links).toHaveLength(2);
      expect(new Set(links).size).toBe(2);
    } finally {
      await h.close();
    }
  });
});

describe('privacy', () => {
  it('no subscriber address appears in any request the model server received', async () => {
    const h = await world();
    try {
      const emails = ['ada.private@example.com', 'dee.private@example.org'];
      await h.subscribe(subscriber(emails[0], 'instant'));
      await h.subscribe(subscriber(emails[1], 'daily'));
      h.serveFeed(ITEMS);
      await h.cron({ now: EARLY });
      await h.cron({ now: '2026-11-30T08:05:00Z' });
      const requests = await h.requests();
      expect(requests.length).toBeGreaterThanOrEqual(2);
      const wire = JSON.stringify(requests.map((r) => r.body));
      for (const email of emails) {
        expect(wire).not.toContain(email);
        expect(wire).not.toContain(email.split('@')[0]);
      }
    } finally {
      await h.close();
    }
  });
});
