import { afterEach, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout, rssFeed } from '../../scripts/sample-feed/rss-feed';

const NOW = '2026-11-30T06:00:00Z';
const SECRET = 'internal-admin-token-7f3a';

let h: Harness;
let internal: FeedServer | null = null;
afterEach(async () => {
  await h?.close();
  await internal?.close();
  internal = null;
});

describe('a feed cannot make Scout fetch an internal service', () => {
  it('a feed redirecting to another service on the machine stores nothing, mails nothing, and records only "blocked address"', async () => {
    h = await createHarness();
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    // Another service on the same machine whose answer happens to parse as a feed full of matches.
    internal = await startFeedServer();
    internal.setFeed('/admin.xml', {
      body: rssFeed(postingsAbout('react', 3, { at: new Date(NOW), prefix: SECRET })),
      contentType: 'application/rss+xml',
    });
    h.feeds.setFeed('/jobs.xml', { body: 'moved', contentType: 'text/plain', status: 302, location: `${internal.url}/admin.xml` });

    const res = await h.cron({ now: NOW });

    expect(res.status).toBe(200);
    expect((await h.db.collection('jobs').get()).size).toBe(0);
    expect(await h.inbox()).toHaveLength(0);
    expect(internal.requests()).toHaveLength(0);
    expect(res.body.feeds).toEqual([expect.objectContaining({ status: 'error', error: 'blocked address' })]);
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    const [feed] = (await h.db.collection('feeds').get()).docs;
    expect(feed.get('lastError')).toBe('blocked address');
  });

  it('without FEED_ALLOW_PRIVATE_ADDRESSES even the configured loopback feed is refused, and the cron answer is no port scanner', async () => {
    h = await createHarness({ FEED_ALLOW_PRIVATE_ADDRESSES: 'false' });
    const closed: FeedServer = await startFeedServer();
    const closedUrl = `${closed.url}/jobs.xml`;
    await closed.close();
    const config = { ...h.config, FEED_URLS: `open=${h.feeds.url}/jobs.xml, closed=${closedUrl}` };
    h.serveFeed(postingsAbout('react', 2, { at: new Date(NOW) }));

    const { handleCronRequest } = await import('../../lib/cron/handle-cron-request');
    const res = await handleCronRequest(
      new Request(`http://localhost/api/cron?now=${NOW}`, { headers: { authorization: `Bearer ${h.config.CRON_SECRET}` } }),
      { ...h.deps, config },
    );
    const body = await res.json();

    // A listening port and a closed one look the same from outside: neither was connected to.
    expect(body.feeds.map((f: { error?: string }) => f.error)).toEqual(['blocked address', 'blocked address']);
    expect(h.feeds.requests()).toHaveLength(0);
    expect((await h.db.collection('jobs').get()).size).toBe(0);
  });
});
