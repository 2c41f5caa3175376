import { describe, expect, it } from 'vitest';
import { parseSourceList, SourceListError } from '../../lib/feeds/source-list';

// The limits a source gets unless its entry sets its own: FEED_TIMEOUT_MS and FEED_MAX_BYTES, 10 s and 5 MB.
const base: { FEED_URLS?: string; SOURCES?: string } = {};
const problemsOf = (config: { FEED_URLS?: string; SOURCES?: string }) => {
  try {
    parseSourceList({ ...base, ...config });
  } catch (error) {
    if (error instanceof SourceListError) return error.problems;
    throw error;
  }
  return [];
};

describe('the source list', () => {
  it('FEED_URLS entries become feed sources with the global limits, as before SOURCES existed', () => {
    expect(parseSourceList({ ...base, FEED_URLS: 'jobs=https://jobs.example/rss' })).toEqual([
      {
        kind: 'feed',
        id: 'jobs',
        params: { url: 'https://jobs.example/rss' },
        timeoutMs: 10_000,
        maxBytes: 5_000_000,
        minIntervalMinutes: 0,
      },
    ]);
  });

  it('a SOURCES entry keeps its own limits, and FEED_URLS and SOURCES add up', () => {
    const sources = parseSourceList({
      ...base,
      FEED_URLS: 'a=https://a.example/rss',
      SOURCES: JSON.stringify([
        {
          kind: 'feed',
          id: 'b',
          params: { url: 'https://b.example/feed.json' },
          timeoutMs: 2_000,
          maxBytes: 100_000,
          minIntervalMinutes: 60,
        },
      ]),
    });
    expect(sources.map((s) => [s.id, s.timeoutMs, s.maxBytes, s.minIntervalMinutes])).toEqual([
      ['a', 10_000, 5_000_000, 0],
      ['b', 2_000, 100_000, 60],
    ]);
  });

  it('names every bad entry by position and id, never silently dropping one', () => {
    const problems = problemsOf({
      SOURCES: JSON.stringify([
        { kind: 'feed', id: 'Bad_Id', params: { url: 'https://x.example' } },
        { kind: 'nope', id: 'two', params: {} },
        { kind: 'feed', id: 'three', params: { url: 'ftp://x.example' } },
        { kind: 'feed', id: 'four', params: { url: 'https://x.example' }, timeoutMs: 'fast' },
        { kind: 'feed', id: 'five', params: { url: 'https://x.example', extra: 1 } },
      ]),
    });
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(/^SOURCES\[0\] \("Bad_Id"\) id must be/);
    expect(problems[1]).toMatch(/^SOURCES\[1\] \("two"\) kind must be one of feed/);
    expect(problems[2]).toMatch(/^SOURCES\[2\] \("three"\) params\.url/);
    expect(problems[3]).toMatch(/^SOURCES\[3\] \("four"\) timeoutMs/);
    expect(problems[4]).toMatch(/^SOURCES\[4\] \("five"\) params/);
  });

  it('refuses what is not a JSON array, a duplicate id, and an empty list', () => {
    expect(problemsOf({ SOURCES: '{"kind":"feed"' })).toEqual(['SOURCES must be a JSON array of sources (it is not valid JSON)']);
    expect(problemsOf({ SOURCES: '{"kind":"feed"}' })).toEqual(['SOURCES must be a JSON array of sources']);
    expect(
      problemsOf({
        FEED_URLS: 'a=https://a.example/rss',
        SOURCES: JSON.stringify([{ kind: 'feed', id: 'a', params: { url: 'https://b.example' } }]),
      }),
    ).toEqual([expect.stringMatching(/"a" is used twice/)]);
    expect(problemsOf({ SOURCES: '[]' })).toEqual(['FEED_URLS or SOURCES must name at least one source']);
  });
});
