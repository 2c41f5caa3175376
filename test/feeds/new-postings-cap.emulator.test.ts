import { afterEach, describe, expect, it } from 'vitest';
import { FEED_MAX_NEW_POSTINGS_PER_RUN } from '../../lib/feeds/refresh-feeds';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

let h: Harness;
afterEach(async () => h?.close());

const at = (minutes: number) => new Date(Date.parse('2026-11-30T06:00:00Z') + minutes * 60_000).toISOString();

describe('one source adds at most FEED_MAX_NEW_POSTINGS_PER_RUN new postings per run', () => {
  it('a feed of 1,200 new items is stored 500 a run, newest first, each exactly once, then answers 304', async () => {
    h = await createHarness();
    expect(h.config.tuning?.FEED_MAX_NEW_POSTINGS_PER_RUN ?? FEED_MAX_NEW_POSTINGS_PER_RUN).toBe(500);
    h.serveFeed(postingsAbout('react', 1_200, { at: new Date(at(0)) }));
    const feedState = async () => (await h.db.collection('feeds').get()).docs[0];

    const runs: { jobsNew: number; partial: boolean; runId: string; feeds: { status: string; held?: number }[] }[] = [];
    for (let i = 0; i < 4; i++) runs.push(await h.run({ now: at(15 * i) }));

    expect(runs.map((r) => r.jobsNew)).toEqual([500, 500, 200, 0]);
    // Held-back postings are work left for the next run: the run says so.
    expect(runs.map((r) => r.partial)).toEqual([true, true, false, false]);
    expect(runs.map((r) => r.feeds[0].held)).toEqual([700, 200, undefined, undefined]);
    expect(runs[3].feeds[0].status).toBe('not-modified');

    const jobs = (await h.db.collection('jobs').get()).docs;
    expect(jobs).toHaveLength(1_200);
    // The feed lists newest first; the first run took the first 500 of them.
    const firstRun = new Set(jobs.filter((d) => d.get('runId') === runs[0].runId).map((d) => d.get('guid')));
    expect(firstRun).toEqual(new Set(Array.from({ length: 500 }, (_, i) => `react-${i}`)));
    expect(new Set(jobs.map((d) => d.get('runId')))).toEqual(new Set(runs.slice(0, 3).map((r) => r.runId)));
    expect((await feedState()).get('etag')).toBeTruthy();
  });

  it('a run cut short by the cap keeps no validators, so the next fetch is never a 304 that hides the rest', async () => {
    h = await createHarness({}, { FEED_MAX_NEW_POSTINGS_PER_RUN: 10 });
    h.serveFeed(postingsAbout('react', 5, { at: new Date(at(0)) }));
    await h.run({ now: at(0) });
    const feed = () =>
      h.db
        .collection('feeds')
        .get()
        .then((s) => s.docs[0]);
    expect((await feed()).get('etag')).toBeTruthy();

    h.serveFeed(postingsAbout('react', 25, { at: new Date(at(15)) }));
    const cut = await h.run({ now: at(15) });
    expect(cut.jobsNew).toBe(10);
    expect((await feed()).get('etag')).toBeNull();
    expect((await feed()).get('lastModified')).toBeNull();

    const next = await h.run({ now: at(30) });
    expect(h.feeds.requests().at(-1)?.ifNoneMatch).toBeNull();
    expect(next.jobsNew).toBe(10);
  });
});
