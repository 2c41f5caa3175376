import { describe, expect, it } from 'vitest';
import { parseFeedUrls } from '../../lib/feeds/feed-source';

describe('parseFeedUrls', () => {
  it('parses URLs and name=URL entries separated by commas or whitespace', () => {
    const sources = parseFeedUrls(
      ' sample=http://127.0.0.1:3030/sample.xml,\n https://Jobs.Example.com/rss?q=react&sort=new  Upwork_Dev=https://x.example/feed ',
    );
    expect(sources).toHaveLength(3);
    expect(sources[0]).toEqual({ source: 'sample', url: 'http://127.0.0.1:3030/sample.xml' });
    expect(sources[1].url).toBe('https://jobs.example.com/rss?q=react&sort=new');
    expect(sources[1].source).toMatch(/^jobs-example-com-[0-9a-f]{8}$/);
    expect(sources[2]).toEqual({ source: 'upwork-dev', url: 'https://x.example/feed' });
  });

  it('derives the same source from the same URL every time, and different ones for different URLs', () => {
    const [a] = parseFeedUrls('https://jobs.example.com/a.xml');
    const [again] = parseFeedUrls('https://jobs.example.com/a.xml');
    const [b] = parseFeedUrls('https://jobs.example.com/b.xml');
    expect(again.source).toBe(a.source);
    expect(b.source).not.toBe(a.source);
  });

  it('only ever yields [a-z0-9-] sources', () => {
    const sources = parseFeedUrls('http://[::1]:8080/f.xml https://xn--bcher-kva.example/f My.Feed=https://a.example/');
    for (const { source } of sources) expect(source).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });

  it('returns nothing for an empty value', () => {
    expect(parseFeedUrls('')).toEqual([]);
    expect(parseFeedUrls(' , \n')).toEqual([]);
  });

  it('throws naming the bad entry', () => {
    expect(() => parseFeedUrls('https://ok.example/ ftp://files.example/feed.xml')).toThrow(/"ftp:\/\/files\.example\/feed\.xml"/);
    expect(() => parseFeedUrls('jobs=javascript:alert(1)')).toThrow(/"jobs=javascript:alert\(1\)".*http/);
    expect(() => parseFeedUrls('not-a-url')).toThrow(/"not-a-url"/);
    expect(() => parseFeedUrls('---=https://a.example/')).toThrow(/unusable name/);
  });

  it('rejects one name used for two URLs, but tolerates an exact repeat', () => {
    expect(parseFeedUrls('a=https://a.example/ a=https://a.example/')).toHaveLength(1);
    expect(() => parseFeedUrls('a=https://a.example/ a=https://b.example/')).toThrow(/two different URLs/);
  });
});
