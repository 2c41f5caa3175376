import { fetch } from 'undici';
import { describe, expect, it } from 'vitest';
import type { Firestore } from 'firebase-admin/firestore';
import { feedAdapter } from '../../../lib/feeds/adapters/feed-adapter';
import { remotiveAdapter } from '../../../lib/feeds/adapters/remotive-adapter';
import { postingId, type Posting } from '../../../lib/feeds/posting';
import { createSourceHttp } from '../../../lib/feeds/source-http';
import type { Config } from '../../../lib/runtime/config';
import { rssFeed } from '../../../scripts/sample-feed/rss-feed';
import { startFeedServer } from '../../../scripts/sample-feed/server';
import { json, readOnce } from './read-adapter';

const NOW = new Date('2026-10-02T00:00:00Z');

/**
 * Links a hostile poster could put in a posting: each names a private, loopback or link-local
 * address, in the spellings the URL parser turns into one (127.1, 2130706433, 0x7f.0.0.1,
 * 0177.0.0.1, [::127.0.0.1]). A subscriber's browser would open them inside the subscriber's own
 * network, so Scout never shows them as a link.
 */
const PRIVATE_LINKS = [
  'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  'http://10.0.0.1/jobs/1',
  'https://192.168.1.1/admin',
  'http://172.16.0.1/',
  'http://100.64.0.1/',
  'http://127.0.0.1:8080/jobs/1',
  'http://127.1/jobs/1',
  'http://2130706433/jobs/1',
  'http://0x7f.0.0.1/jobs/1',
  'http://0177.0.0.1/jobs/1',
  'http://0.0.0.0/',
  'http://[::1]/jobs/1',
  'http://[::127.0.0.1]/jobs/1',
  'http://[::ffff:169.254.169.254]/',
  'http://[fe80::1]/',
  'http://[fd00::1]/',
  'http://localhost:3000/jobs/1',
  'http://admin.localhost/jobs/1',
];

const PUBLIC_LINKS = ['https://jobs.example.com/jobs/1', 'https://93.184.215.14/jobs/1', 'https://[2606:4700:4700::1111]/jobs/1'];

const remotiveJob = (id: number, url: string) => ({
  id,
  url,
  title: `Engineer ${id}`,
  company_name: 'Brightwave',
  category: 'Software Development',
  tags: [],
  job_type: 'full_time',
  publication_date: '2026-10-01T09:00:00',
  candidate_required_location: 'Worldwide',
  salary: '',
  description: '<p>Build things.</p>',
});

async function remotivePostings(urls: string[]): Promise<Posting[]> {
  const body = { 'job-count': urls.length, jobs: urls.map((url, i) => remotiveJob(i + 1, url)) };
  const result = await readOnce(remotiveAdapter, { params: {}, served: { '/api/remote-jobs': json(body) }, now: NOW, id: 'remotive-test' });
  if (result.status !== 'ok') throw new Error('expected postings');
  return result.postings;
}

/** The feed adapter over loopback, through the guarded http the runner builds. */
async function feedPostings(links: string[], options = { withGuids: true }): Promise<Posting[]> {
  const items = links.map((link, i) => ({
    ...(options.withGuids ? { guid: `job-${i}` } : {}),
    title: `Engineer ${i}`,
    link,
    pubDate: NOW.toUTCString(),
  }));
  const server = await startFeedServer({ feeds: { '/jobs.xml': { body: rssFeed(items), contentType: 'application/rss+xml' } } });
  try {
    const url = `${server.url}/jobs.xml`;
    const http = createSourceHttp({
      source: 'feed-test',
      fetch,
      timeoutMs: 5_000,
      maxBytes: 5_000_000,
      allowPrivateAddresses: true,
      redirects: feedAdapter.redirects,
      userAgent: 'ScoutBot/1.0',
    });
    const source = { kind: 'feed', id: 'feed-test', params: { url }, timeoutMs: 5_000, maxBytes: 5_000_000, minIntervalMinutes: 0 };
    const result = await feedAdapter.read({
      source,
      http,
      validators: null,
      now: NOW,
      db: null as unknown as Firestore,
      config: null as unknown as Config,
    });
    if (result.status !== 'ok') throw new Error('expected postings');
    return result.postings;
  } finally {
    await server.close();
  }
}

describe('a posting linking to a private address keeps the posting and loses the link', () => {
  it('an API board: every private link becomes null, the posting and its title stay, public links are kept', async () => {
    const postings = await remotivePostings([...PRIVATE_LINKS, ...PUBLIC_LINKS]);

    expect(postings).toHaveLength(PRIVATE_LINKS.length + PUBLIC_LINKS.length);
    expect(postings.slice(0, PRIVATE_LINKS.length).map((p) => [p.title, p.url])).toEqual(
      PRIVATE_LINKS.map((_, i) => [`Engineer ${i + 1}`, null]),
    );
    expect(postings.slice(PRIVATE_LINKS.length).map((p) => p.url)).toEqual(PUBLIC_LINKS.map((link) => new URL(link).href));
  });

  it('a feed: every private link becomes null, the posting and its title stay, public links are kept', async () => {
    const postings = await feedPostings([...PRIVATE_LINKS, ...PUBLIC_LINKS]);

    expect(postings.map((p) => p.url)).toEqual([...PRIVATE_LINKS.map(() => null), ...PUBLIC_LINKS.map((link) => new URL(link).href)]);
    expect(postings.every((p) => p.title.startsWith('Engineer '))).toBe(true);
  });

  it('a feed item without a guid keeps the id its link gave it, so dropping the link adds no duplicate', async () => {
    const link = 'http://169.254.169.254/latest/meta-data/';
    const [posting] = await feedPostings([link], { withGuids: false });

    expect(posting.url).toBeNull();
    expect(posting.id).toBe(postingId('feed-test', link));
  });
});
