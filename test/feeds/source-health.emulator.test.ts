import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFeedState, recordFeedFailure, recordFeedSuccess } from '../../lib/feeds/feed-state';
import { refreshFeeds, type FeedReport } from '../../lib/feeds/refresh-feeds';
import { parseSourceList } from '../../lib/feeds/source-list';
import { postingsAbout, rssFeed } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';

const T0 = new Date('2026-11-30T06:00:00Z');
const MIN = 60_000;
const at = (ms: number) => new Date(T0.getTime() + ms);
let h: Harness;
let run = 0;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

/** Two sources on the sample server: `gone` (410 from its second run on) and `steady` (the harness's RSS feed). */
function sources() {
  return parseSourceList({
    ...h.config,
    FEED_URLS: `gone=${h.feeds.url}/gone.xml, steady=${h.feeds.url}/jobs.xml`,
  });
}

async function refresh(now: Date): Promise<Record<string, FeedReport>> {
  const result = await refreshFeeds(
    { db: h.db, fetch: h.deps.fetch },
    { sources: sources(), now, runId: `run-${++run}`, config: h.config, dryRun: false },
  );
  return Object.fromEntries(result.feeds.map((f) => [f.source, f]));
}

const state = async (source: string) => readFeedState((await h.db.collection('feeds').doc(source).get()).data())!;
const asked = (path: string) => h.feeds.requests().filter((r) => r.path === path).length;

describe('source health through the runner', () => {
  it('a source answering 410 three runs in a row is disabled, then asked once a day; the other source is unaffected', async () => {
    h.feeds.setFeed('/gone.xml', { body: rssFeed(postingsAbout('react', 2, { at: T0 })), contentType: 'application/rss+xml' });
    h.serveFeed(postingsAbout('node', 1, { at: T0 }));
    expect((await refresh(T0)).gone.status).toBe('ok');

    h.feeds.setFeed('/gone.xml', { body: 'Gone', contentType: 'text/plain', status: 410 });
    for (let i = 1; i <= 3; i++) expect((await refresh(at(i * 15 * MIN))).gone).toMatchObject({ status: 'error', error: 'HTTP 410' });
    const disabled = await state('gone');
    expect(disabled.health).toMatchObject({
      state: 'disabled',
      consecutiveFailures: 3,
      disabledAt: at(45 * MIN),
      disabledReason: 'answered 410 3 times in a row',
      failingSince: at(15 * MIN),
      nextProbeAt: at(45 * MIN + 24 * 60 * MIN),
    });
    expect(asked('/gone.xml')).toBe(4);

    // A day of runs every 15 minutes: not asked, reported skipped with the reason.
    for (let m = 60; m < 45 + 24 * 60; m += 15) {
      const reports = await refresh(at(m * MIN));
      expect(reports.gone).toEqual({
        source: 'gone',
        kind: 'feed',
        status: 'skipped',
        reason: `disabled; next probe at ${at((45 + 24 * 60) * MIN).toISOString()}`,
      });
      expect(reports.steady.status).toMatch(/ok|not-modified/);
    }
    expect(asked('/gone.xml')).toBe(4);
    expect(asked('/jobs.xml')).toBe(1 + 3 + 95);

    // The probe: asked once, still gone, disabled another day.
    const probe = at((45 + 24 * 60) * MIN);
    expect((await refresh(probe)).gone.status).toBe('error');
    expect((await refresh(at((60 + 24 * 60) * MIN))).gone.status).toBe('skipped');
    expect(asked('/gone.xml')).toBe(5);
    expect((await state('gone')).health).toMatchObject({
      state: 'disabled',
      disabledAt: at(45 * MIN),
      nextProbeAt: at((45 + 48 * 60) * MIN),
    });

    // The board is back: the next probe re-enables it and it is asked every run again.
    h.feeds.setFeed('/gone.xml', {
      body: rssFeed(postingsAbout('react', 3, { at: probe, prefix: 'back' })),
      contentType: 'application/rss+xml',
    });
    expect((await refresh(at((45 + 48 * 60) * MIN))).gone).toMatchObject({ status: 'ok', new: 3 });
    expect((await state('gone')).health).toMatchObject({ state: 'ok', consecutiveFailures: 0, disabledAt: null, nextProbeAt: null });
    expect((await refresh(at((60 + 48 * 60) * MIN))).gone.status).toBe('not-modified');

    const steady = await state('steady');
    expect(steady.health).toMatchObject({ state: 'ok', consecutiveFailures: 0, lastError: null });
  });

  it('a malformed answer 5 runs in a row disables the source; a dry run still reads it', async () => {
    h.feeds.setFeed('/gone.xml', { body: '<rss><channel><item><title>x', contentType: 'application/rss+xml' });
    for (let i = 0; i < 4; i++) await refresh(at(i * 15 * MIN));
    expect((await state('gone')).health).toMatchObject({ state: 'failing', parseStreak: 4 });
    await refresh(at(60 * MIN));
    expect((await state('gone')).health).toMatchObject({
      state: 'disabled',
      disabledReason: 'its answer failed to parse 5 times in a row',
    });
    const dry = await refreshFeeds(
      { db: h.db, fetch: h.deps.fetch },
      { sources: sources(), now: at(75 * MIN), runId: 'dry', config: h.config, dryRun: true },
    );
    expect(dry.feeds.find((f) => f.source === 'gone')!.status).toBe('error');
    // A dry run writes nothing: the streak and the probe are as they were.
    expect((await state('gone')).health).toMatchObject({ consecutiveFailures: 5, nextProbeAt: at(24 * 60 * MIN + 60 * MIN) });
  });

  it('overlapping runs recording the same source lose no count', async () => {
    const described = { source: 'busy', url: 'https://example.com/feed.xml', now: T0 };
    await recordFeedSuccess(h.db, { ...described, postings: 10, created: 10 });
    await Promise.all(
      Array.from({ length: 8 }, () => recordFeedFailure(h.db, { ...described, error: 'HTTP 404', failure: 'gone', status: 404 })),
    );
    expect((await state('busy')).health).toMatchObject({ state: 'disabled', consecutiveFailures: 8, goneStreak: 8 });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => recordFeedSuccess(h.db, { ...described, now: at((i + 1) * 15 * MIN), postings: 10, created: 1 })),
    );
    const after = await state('busy');
    expect(after.health.state).toBe('ok');
    // The first read's backlog is not a rate; the 8 later ones all counted, none lost.
    expect(after.health.newPostingsByDay).toEqual({ '2026-11-30': 8 });
  });
});
