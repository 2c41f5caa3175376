import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTextCut, MAX_DESCRIPTION } from '../../lib/feeds/posting';
import { refreshFeeds } from '../../lib/feeds/refresh-feeds';
import { parseSourceList } from '../../lib/feeds/source-list';
import type { FeedServer, ServedFeed } from '../../scripts/sample-feed/server';
import type { SourceEntry } from '../../scripts/sample-feed/kinds/sample-kind';
import { postingsAbout, rssFeed } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from './harness';

/**
 * One kind of source under hostile answers. `path` is the request that carries the job list; any
 * request before it (a token, a thread search) is served valid by `serveValid`.
 */
export type HostileSubject = {
  kind: string;
  /** The SOURCES entry of the source under test (its id must be `hostile`), reading from `origin`. */
  entry(origin: string): SourceEntry;
  path: string;
  contentType?: string;
  /** Requests the adapter makes before `path`, answered well. */
  serveValid?(server: FeedServer): void;
  /** Settings the kind needs besides SOURCES (its credentials). */
  env?: Record<string, string>;
  bodies: {
    /** A good answer with at least one job. */
    valid: string;
    /** The documented shape with a wrong type in every field of every job. */
    wrongTypes: string;
    /** Jobs without their id. */
    missingIds: string;
    /** A job whose text fields are each 1 MB. */
    hugeStrings: string;
    /** A job whose title holds <script> and control characters. */
    scriptTitles: string;
  };
};

const NOW = new Date('2026-11-30T06:00:00Z');
const ONE_MEGABYTE = 'x'.repeat(1_000_000);
export const HUGE_STRING = ONE_MEGABYTE;
export const SCRIPT_TITLE = 'Senior <script>alert(1)</script> Engineer\u0000\u0007\u001b[31m\u202e';

/**
 * The bad-input table for one adapter: each malformed or hostile answer ends with a
 * recorded source error, nothing stored from it, and the other source of the run untouched; the
 * answers that are merely nasty (huge strings, markup and control characters) are stored capped
 * and cleaned.
 */
export function describeHostileAnswers(subject: HostileSubject): void {
  describe(`${subject.kind}: hostile answers`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness(subject.env);
    });
    afterAll(async () => h.close());

    const run = async (answer: Omit<ServedFeed, 'contentType'> & { contentType?: string }, limits: Partial<SourceEntry> = {}) => {
      // A fresh source id per case: no state (validators, Retry-After) carries from one case to the next.
      const id = `hostile-${Math.random().toString(36).slice(2, 8)}`;
      const entry = { ...subject.entry(h.feeds.url), id, ...limits };
      subject.serveValid?.(h.feeds);
      h.feeds.setFeed(subject.path, {
        ...answer,
        contentType: answer.contentType ?? subject.contentType ?? 'application/json; charset=utf-8',
      });
      h.feeds.setFeed('/good.xml', {
        body: rssFeed(postingsAbout('react', 1, { at: NOW, prefix: id })),
        contentType: 'application/rss+xml',
      });
      const sources = parseSourceList({ ...h.config, FEED_URLS: `good-${id}=${h.feeds.url}/good.xml`, SOURCES: JSON.stringify([entry]) });
      const result = await refreshFeeds(h.deps, { sources, now: NOW, runId: `run-${id}`, config: h.config, dryRun: false });
      const state = (await h.db.collection('feeds').doc(id).get()).data();
      const stored = (await h.db.collection('jobs').where('source', '==', id).get()).docs.map((d) => d.data());
      const good = (await h.db.collection('jobs').where('source', '==', `good-${id}`).get()).size;
      return { result, state, stored, good, report: result.feeds.find((f) => f.source === id)! };
    };

    const expectRecordedError = (outcome: Awaited<ReturnType<typeof run>>, error: RegExp) => {
      expect(outcome.report.status).toBe('error');
      expect(outcome.state?.lastError).toMatch(error);
      expect(outcome.state?.consecutiveFailures).toBe(1);
      expect(outcome.stored).toEqual([]);
      expect(outcome.good).toBe(1);
    };

    it('a good answer is stored (the subject is wired to the right path)', async () => {
      const outcome = await run({ body: subject.bodies.valid });
      expect(outcome.report.status).toBe('ok');
      expect(outcome.stored.length).toBeGreaterThan(0);
      expect(outcome.state?.lastError).toBeNull();
    });

    it('HTML instead of JSON is a recorded error and stores nothing', async () => {
      expectRecordedError(
        await run({ body: '<!DOCTYPE html><html><body><h1>Service unavailable</h1></body></html>', contentType: 'text/html' }),
        /HTML|not|malformed|invalid/i,
      );
    });

    it('a truncated answer is a recorded error and stores nothing, not the jobs before the cut', async () => {
      expectRecordedError(
        await run({ body: subject.bodies.valid.slice(0, Math.floor(subject.bodies.valid.length * 0.6)) }),
        /malformed|incomplete|invalid/i,
      );
    });

    it('a 10 MB answer is refused at the byte cap and stores nothing', async () => {
      expectRecordedError(await run({ body: subject.bodies.valid + ' '.repeat(10_000_000) }, { maxBytes: 1_000_000 }), /larger than/i);
    });

    it('a wrong type in every field is a recorded error and stores nothing', async () => {
      expectRecordedError(await run({ body: subject.bodies.wrongTypes }), /./);
    });

    it('jobs without ids are a recorded error and store nothing', async () => {
      expectRecordedError(await run({ body: subject.bodies.missingIds }), /./);
    });

    it('a redirect to another host is refused and stores nothing', async () => {
      const elsewhere = h.feeds.url.replace('127.0.0.1', 'localhost');
      expectRecordedError(await run({ body: '', status: 302, location: `${elsewhere}${subject.path}` }), /redirect|blocked/i);
    });

    it('a slow drip is cut at the timeout and stores nothing', async () => {
      expectRecordedError(await run({ body: subject.bodies.valid, dripMs: 100 }, { timeoutMs: 400 }), /timed out/i);
    });

    it('a 429 with Retry-After is recorded and the source is not asked again before it has passed', async () => {
      const outcome = await run({ body: 'slow down', status: 429, contentType: 'text/plain', headers: { 'retry-after': '120' } });
      expectRecordedError(outcome, /HTTP 429/);
      expect(outcome.state?.retryAfter.toDate().getTime()).toBe(NOW.getTime() + 120_000);
    });

    it('a 5xx is a recorded error and stores nothing', async () => {
      expectRecordedError(await run({ body: 'oops', status: 502, contentType: 'text/plain' }), /HTTP 502/);
    });

    it('huge strings are stored capped: a 300-character title, a MAX_DESCRIPTION description, the cut counted', async () => {
      const outcome = await run({ body: subject.bodies.hugeStrings });
      expect(outcome.report.status).toBe('ok');
      expect(outcome.stored.length).toBeGreaterThan(0);
      // A huge text loses its end, and the run counts it (the cycle logs posting.text_cut).
      expect(outcome.report.textCut ?? 0).toBe(outcome.stored.filter((p) => isTextCut(p.description)).length);
      for (const posting of outcome.stored) {
        expect(posting.title.length).toBeLessThanOrEqual(300);
        expect(posting.description.length).toBeLessThanOrEqual(MAX_DESCRIPTION);
        for (const field of ['company', 'location'] as const) expect((posting[field] ?? '').length).toBeLessThanOrEqual(200);
      }
    });

    it('markup and control characters in titles are stored as plain text without them', async () => {
      const outcome = await run({ body: subject.bodies.scriptTitles });
      expect(outcome.report.status).toBe('ok');
      const [posting] = outcome.stored;
      expect(posting.title).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
      expect(posting.title).toContain('Engineer');
    });
  });
}
