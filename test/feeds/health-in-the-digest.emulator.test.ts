import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleCronRequest } from '../../lib/cron/handle-cron-request';
import { readSourceCoverage } from '../../lib/feeds/source-coverage';
import type { TestItem } from '../../scripts/sample-feed/rss-feed';
import { CRON_SECRET, createHarness, type Harness } from '../support/harness';
import { recordSourcesInFourStates } from '../support/sources-in-four-states';

let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const django = (prefix: string, count: number, at: string): TestItem[] =>
  Array.from({ length: count }, (_, i) => ({
    guid: `${prefix}-${i}`,
    title: `Django backend ${prefix}-${i}`,
    link: `https://jobs.example.com/${prefix}/${i}`,
    description: 'A django app.',
    pubDate: new Date(new Date(at).getTime() - (i + 1) * 60_000).toUTCString(),
  }));

describe('subscribers are told what was checked', () => {
  it("a flushed digest's footer counts the postings and sources checked and names the source down since Sunday, in both parts", async () => {
    await h.subscribe({ email: 'dana@example.com', keywords: ['django'], mode: 'daily' });
    const config = { ...h.config, FEED_URLS: `jobs=${h.feeds.url}/jobs.xml, down=${h.feeds.url}/down.xml` };
    const cron = async (now: string) => {
      const request = new Request(`http://localhost/api/cron?now=${now}`, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
      return (await handleCronRequest(request, { ...h.deps, config })).json();
    };
    h.feeds.setFeed('/down.xml', { body: 'Service Unavailable', contentType: 'text/plain', status: 503 });
    // Sunday before the digest hour: queued, not sent; the board is already down.
    h.serveFeed(django('sun', 3, '2026-11-29T06:00:00Z'));
    await cron('2026-11-29T06:00:00Z');
    expect(await h.inbox()).toHaveLength(0);
    // Monday's digest run: the feed lists 3 + 2 postings, the board is still down.
    h.serveFeed([...django('sun', 3, '2026-11-29T06:00:00Z'), ...django('mon', 2, '2026-11-30T08:00:00Z')]);
    const monday = await cron('2026-11-30T08:00:00Z');
    expect(monday).toMatchObject({ digests: 1 });

    const [digest] = await h.inbox();
    const line = 'Checked 5 postings from 2 sources; 1 source unreachable since Sunday.';
    expect(digest.text).toContain(`\n\n${line}\n\n--\n`);
    expect(digest.html).toContain(line);
    // In the footer, after the last posting.
    expect(digest.html!.indexOf(line)).toBeGreaterThan(digest.html!.indexOf('Django backend'));
  });

  it('counts every source asked lately; a silent source answers, so only failing and disabled ones are unreachable', async () => {
    const now = new Date('2026-12-02T08:00:00Z');
    await recordSourcesInFourStates(h.db, now);
    expect(await readSourceCoverage(h.db, now)).toEqual({
      // remote-jobs, jobs-feed (read 24 h ago) and quiet-board (a 304 confirming its listing); acme last listed 3 days ago.
      postings: 90,
      sources: 4,
      unreachable: 2,
      unreachableSince: new Date('2026-11-30T07:30:00Z'),
    });
    // Two days on, a source nobody asks (removed from SOURCES) no longer counts.
    expect(await readSourceCoverage(h.db, new Date('2026-12-04T09:00:00Z'))).toMatchObject({ sources: 0, postings: 0 });
  });
});
