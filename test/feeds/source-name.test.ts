import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { feedAdapter } from '../../lib/feeds/adapters/feed-adapter';
import { deriveSource } from '../../lib/feeds/feed-source';
import { feedSiteName, feedSourceName, hostName } from '../../lib/feeds/source-name';
import { readSampleFeed, startFeedServer } from '../../scripts/sample-feed/server';
import { readOverLoopback } from './adapters/read-board';

/**
 * How a card names a generic feed ("Seen on …"). The real titles are those of every capture in
 * test/feeds/adapters/corpus/feed/ (provenance in its PROVENANCE.md), each with its own address.
 */

const corpus = new URL('./adapters/corpus/feed/', import.meta.url);

describe('feedSiteName: a feed’s name for itself, from its title', () => {
  it('names every real feed of the corpus by its site’s name', () => {
    const names = Object.fromEntries(
      readdirSync(corpus)
        .filter((file) => file.endsWith('.xml'))
        .sort()
        .map((file) => {
          const raw = readFileSync(new URL(file, corpus), 'utf8');
          const title = /<title>([^<]*)<\/title>/.exec(raw)![1];
          const address = /<(?:atom:)?link[^>]*rel="self"[^>]*href="([^"]+)"/.exec(raw)?.[1] ?? /<link>([^<]+)<\/link>/.exec(raw)![1];
          return [file, feedSiteName(title, address)];
        }),
    );
    expect(names).toEqual({
      'job-hunter-nodesk.xml': 'NoDesk', // "Remote Jobs on NoDesk"
      'job-hunter-teamtailor-spidersilk.xml': 'spiderSilk',
      'louisinayinde-jobs-euremotejobs.xml': 'EU Remote Jobs', // "Jobs - EU Remote Jobs"
      'louisinayinde-jobs-jobspresso.xml': 'Jobspresso', // "Jobs Archive | Jobspresso"
      'louisinayinde-jobs-nodesk.xml': 'NoDesk',
      'remote-jobs-collector-wwr.xml': 'We Work Remotely', // "We Work Remotely: Remote jobs in design, …"
      'wwr-stats-collector-remote-jobs.xml': 'We Work Remotely',
      'wwr-stats-collector-remote-programming-jobs.xml': 'We Work Remotely',
    });
  });

  it('at an address that names nothing (an IP), reads the title by its conventions', () => {
    expect(feedSiteName('All jobs | Gigboard', 'http://127.0.0.1:3030/sample.xml')).toBe('Gigboard');
    expect(feedSiteName('Gigboard: all jobs', 'http://127.0.0.1:3030/sample.xml')).toBe('Gigboard');
    expect(feedSiteName('Gigboard', 'http://127.0.0.1:3030/sample.xml')).toBe('Gigboard');
    expect(feedSiteName(`${'A sentence that is no name '.repeat(4)}`, 'http://127.0.0.1/')).toBeNull();
    expect(feedSiteName(null, 'https://example.com/')).toBeNull();
    expect(feedSiteName('  \u200b ', 'https://example.com/')).toBeNull();
  });
});

describe('feedSourceName: the card’s name of a feed source', () => {
  it('is the feed’s name, else its host without www, else a name the operator gave, never a bare IP while any of these exists', () => {
    const ip = 'http://127.0.0.1:3030/sample.xml';
    const named = (feedTitle: string | null, url: string, sourceId = deriveSource(new URL(url)), derivedId = true) =>
      feedSourceName({ feedTitle, url, sourceId, derivedId });
    expect(named('All jobs | Gigboard', ip)).toBe('Gigboard');
    expect(named(null, 'https://www.example.com/jobs.rss')).toBe('example.com');
    expect(named(null, ip, 'gigboard', false)).toBe('gigboard');
    expect(named(null, ip)).toBe('127.0.0.1');
    expect(hostName('http://[::1]:3030/')).toBeNull();
    expect(hostName('https://WWW.Example.com/')).toBe('example.com');
  });

  it('is what the feed adapter’s read gives the cards, for the bundled sample served on 127.0.0.1', async () => {
    const server = await startFeedServer({
      feeds: { '/sample.xml': { body: await readSampleFeed(), contentType: 'application/rss+xml' } },
    });
    try {
      const url = `${server.url}/sample.xml`;
      expect(new URL(url).hostname).toBe('127.0.0.1');
      const answer = await readOverLoopback(feedAdapter, { id: deriveSource(new URL(url)), params: { url } });
      expect(answer.status).toBe('ok');
      expect(answer.status === 'ok' && answer.siteName).toBe('Gigboard');
      // Operators still see the address it is read from.
      expect(feedAdapter.label({ kind: 'feed', id: 'x', params: { url }, timeoutMs: 1, maxBytes: 1, minIntervalMinutes: 0 })).toBe(
        '127.0.0.1',
      );
    } finally {
      await server.close();
    }
  });
});
