import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseFeedUrls } from '../../lib/feeds/feed-source';
import { MAX_DESCRIPTION } from '../../lib/feeds/posting';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const NOW = '2026-11-30T06:00:00Z';
let h: Harness;

beforeEach(async () => {
  h = await createHarness();
  await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
});
afterEach(async () => h.close());

const pub = new Date('2026-11-30T05:00:00Z').toUTCString();

describe('feeds in the cycle', () => {
  it('one malformed feed is recorded on feeds/{source} and never stops the others', async () => {
    h.feeds.setFeed('/broken.xml', { body: '<rss><channel><item><title>React</title></item>', contentType: 'application/rss+xml' });
    h.feeds.setFeed('/down.xml', { body: 'oops', contentType: 'text/plain', status: 503 });
    const config = {
      ...h.config,
      FEED_URLS: `broken=${h.feeds.url}/broken.xml, down=${h.feeds.url}/down.xml, good=${h.feeds.url}/jobs.xml`,
    };
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    const deps = { ...h.deps, config };
    const { handleCronRequest } = await import('../../lib/cron/handle-cron-request');
    const res = await handleCronRequest(
      new Request(`http://localhost/api/cron?now=${NOW}`, { headers: { authorization: `Bearer ${h.config.CRON_SECRET}` } }),
      deps,
    );
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.failures).toBe(2);
    expect(body.instantEmails).toBe(1);
    const broken = await h.db.collection('feeds').doc('broken').get();
    expect(broken.get('lastError')).toMatch(/malformed|incomplete/i);
    expect((await h.db.collection('feeds').doc('down').get()).get('lastError')).toMatch(/503/);
    expect((await h.db.collection('feeds').doc('good').get()).get('lastError')).toBeNull();
    expect(parseFeedUrls(config.FEED_URLS)).toHaveLength(3);
  });

  it('HTML and script in titles and descriptions never reach an email as markup', async () => {
    h.serveFeed([
      {
        guid: 'evil-1',
        title: 'React dev &lt;script&gt;alert(1)&lt;/script&gt; <b>urgent</b>',
        link: 'javascript:alert(document.cookie)',
        description: '<script>steal()</script><img src=x onerror=alert(1)>Need React help <a href="https://evil.example">here</a>',
        pubDate: pub,
      },
    ]);
    await h.cron({ now: NOW });
    const [mail] = await h.inbox();
    expect(mail).toBeDefined();
    expect(mail.html).not.toMatch(/<script/i);
    expect(mail.html).not.toMatch(/onerror=/i);
    expect(mail.html).not.toContain('javascript:');
    expect(mail.html).not.toContain('steal()');
    // RSS text is HTML by custom: the markup is stripped to its words.
    expect(mail.subject).toMatch(/^1 new: React dev urgent( at |, |$)/);
  });

  it('plain-text feed fields that look like markup are shown literally, escaped in the HTML part', async () => {
    const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>urn:t</id><updated>2026-11-30T05:00:00Z</updated>
<entry><id>urn:e1</id><title type="text">React &lt;script&gt;alert(1)&lt;/script&gt; &amp; co</title>
<link href="https://jobs.example.com/e1"/><updated>2026-11-30T05:00:00Z</updated><summary type="text">Build &lt;img src=x onerror=alert(1)&gt; in react</summary></entry></feed>`;
    h.feeds.setFeed('/jobs.xml', { body: atom, contentType: 'application/atom+xml' });
    await h.cron({ now: NOW });
    const [mail] = await h.inbox();
    expect(mail.html).not.toMatch(/<script|<img/i);
    expect(mail.html).toContain('React &lt;script&gt;alert(1)&lt;/script&gt; &amp; co');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(mail.text).toContain('* React <script>alert(1)</script> & co');
  });

  it('items without guid fall back to their link (or content) and duplicates collapse to one delivery', async () => {
    const item = { title: 'React contract, no guid', link: 'https://jobs.example.com/no-guid', description: 'react', pubDate: pub };
    const bare = { title: 'React with neither guid nor link', description: 'react only', pubDate: pub };
    h.serveFeed([item, { ...item }, bare, { ...bare }]);
    const first = await h.cron({ now: NOW });
    expect(first.body).toMatchObject({ jobsNew: 2, matches: 2, instantEmails: 1 });
    const [mail] = await h.inbox();
    expect(mail.text!.split('\n').filter((l) => l.startsWith('* '))).toHaveLength(2);
    // Served again unchanged (and with a new ETag, so it is really re-read): nothing new.
    h.serveFeed([item, bare, { ...item }]);
    expect((await h.cron({ now: '2026-11-30T06:15:00Z' })).body).toMatchObject({ jobsNew: 0, instantEmails: 0 });
  });

  it('a huge description is stored and mailed capped', async () => {
    h.serveFeed([
      {
        guid: 'huge',
        title: 'React monolith',
        link: 'https://jobs.example.com/huge',
        description: `react ${'lorem ipsum '.repeat(100_000)}`,
        pubDate: pub,
      },
    ]);
    await h.cron({ now: NOW });
    const job = (await h.db.collection('jobs').get()).docs[0];
    // Stored whole up to the cap (it reaches it), mailed as a short excerpt.
    expect(job.get('description').length).toBeLessThanOrEqual(MAX_DESCRIPTION);
    const [mail] = await h.inbox();
    expect(mail.html!.length).toBeLessThan(20_000);
  });

  it('a feed over FEED_MAX_BYTES is refused and recorded, nothing stored', async () => {
    const small = await createHarness({}, { FEED_MAX_BYTES: 2000 });
    small.serveFeed(postingsAbout('react', 30, { at: new Date(NOW) }));
    const res = await small.cron({ now: NOW });
    expect(res.body.failures).toBe(1);
    expect((await small.db.collection('jobs').get()).size).toBe(0);
    const feed = (await small.db.collection('feeds').get()).docs[0];
    expect(feed.get('lastError')).toMatch(/larger than/);
    await small.close();
  });

  it('the second fetch is conditional: the feed answers 304 and nothing is re-read', async () => {
    h.serveFeed(postingsAbout('react', 2, { at: new Date(NOW) }));
    await h.cron({ now: NOW });
    const second = await h.cron({ now: '2026-11-30T06:15:00Z' });
    expect(second.body.feeds[0].status).toBe('not-modified');
    expect(h.feeds.requests().at(-1)?.ifNoneMatch).toBeTruthy();
  });

  it('a posting older than the retention window is ignored before matching', async () => {
    h.serveFeed([
      {
        guid: 'old',
        title: 'React legacy',
        link: 'https://jobs.example.com/old',
        description: 'react',
        pubDate: new Date('2026-09-01T00:00:00Z').toUTCString(),
      },
    ]);
    const res = await h.cron({ now: NOW });
    expect(res.body).toMatchObject({ jobsNew: 0, matches: 0 });
    expect(await h.inbox()).toHaveLength(0);
  });
});
