import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refreshFeeds } from '../../lib/feeds/refresh-feeds';
import { parseSourceList } from '../../lib/feeds/source-list';
import { postingsAbout, rssFeed } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const at = (iso: string) => new Date(iso);
const requestsTo = (path: string) => h.feeds.requests().filter((r) => r.path === path).length;

async function refresh(now: Date, sources: string) {
  const list = parseSourceList({ ...h.config, FEED_URLS: undefined, SOURCES: sources });
  return refreshFeeds(h.deps, { sources: list, now, runId: `run-${now.getTime()}`, config: h.config, dryRun: false });
}

describe('when a source is asked', () => {
  it("a source with a minimum interval (a provider's rate terms) is asked once per interval, not once per run", async () => {
    h.feeds.setFeed('/slow.xml', {
      body: rssFeed(postingsAbout('react', 1, { at: at('2026-11-30T05:00:00Z') })),
      contentType: 'application/rss+xml',
    });
    const sources = JSON.stringify([{ kind: 'feed', id: 'slow', params: { url: `${h.feeds.url}/slow.xml` }, minIntervalMinutes: 360 }]);
    const first = await refresh(at('2026-11-30T06:00:00Z'), sources);
    expect(first.feeds[0].status).toBe('ok');
    for (const time of ['06:15', '09:00', '11:58']) {
      const later = await refresh(at(`2026-11-30T${time}:00Z`), sources);
      expect(later.feeds[0].status).toBe('skipped');
    }
    expect(requestsTo('/slow.xml')).toBe(1);
    expect((await refresh(at('2026-11-30T12:00:00Z'), sources)).feeds[0].status).not.toBe('skipped');
    expect(requestsTo('/slow.xml')).toBe(2);
  });

  it('a 429 with Retry-After keeps the source unasked until it has passed, and a dry run still looks', async () => {
    h.feeds.setFeed('/busy.xml', { body: 'busy', contentType: 'text/plain', status: 429, headers: { 'retry-after': '3600' } });
    const sources = JSON.stringify([{ kind: 'feed', id: 'busy', params: { url: `${h.feeds.url}/busy.xml` } }]);
    expect((await refresh(at('2026-11-30T06:00:00Z'), sources)).feeds[0]).toMatchObject({ status: 'error', error: 'HTTP 429' });
    expect((await refresh(at('2026-11-30T06:30:00Z'), sources)).feeds[0].status).toBe('skipped');
    expect(requestsTo('/busy.xml')).toBe(1);
    const list = parseSourceList({ ...h.config, FEED_URLS: undefined, SOURCES: sources });
    await refreshFeeds(h.deps, { sources: list, now: at('2026-11-30T06:30:00Z'), runId: 'dry', config: h.config, dryRun: true });
    expect(requestsTo('/busy.xml')).toBe(2);
    h.feeds.setFeed('/busy.xml', {
      body: rssFeed(postingsAbout('react', 1, { at: at('2026-11-30T05:00:00Z') })),
      contentType: 'application/rss+xml',
    });
    expect((await refresh(at('2026-11-30T07:00:00Z'), sources)).feeds[0].status).toBe('ok');
  });
});
