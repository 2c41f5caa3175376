import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseGreenhouseJobs } from '../../lib/feeds/adapters/greenhouse-adapter';
import { parseFeed } from '../../lib/feeds/parse-feed';
import { capText } from '../../lib/feeds/plain-text';
import type { Posting } from '../../lib/feeds/posting';
import { matchPostings } from '../../lib/matching/match-postings';
import { keywordPattern } from '../../lib/matching/text';
import type { MatchProfile } from '../../lib/matching/keyword-lookup';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';

/**
 * Real postings open with the company's story and name their requirements later. Two postings of
 * the real corpus (test/feeds/adapters/corpus) name a subscriber's keyword only after their first
 * 5,000 characters, in neither title nor tags: read by the real adapter, each matches a subscriber
 * with that keyword. Cut at the old 2,000 characters, neither did.
 */
const corpus = (path: string) => readFileSync(new URL(`../feeds/adapters/corpus/${path}`, import.meta.url), 'utf8');

const cases: { what: string; keyword: string; posting: () => Posting }[] = [
  {
    what: 'Greenhouse, SmarterDx "Client Support Analyst I"',
    keyword: 'sql',
    posting: () => parseGreenhouseJobs('gh', corpus('greenhouse/smarterdx.json'), { company: null }).find((p) => p.guid === '5193736007')!,
  },
  {
    what: 'We Work Remotely RSS, Kitces.com "Senior Director of Platform & Product"',
    keyword: 'python',
    posting: () =>
      parseFeed(corpus('feed/wwr-stats-collector-remote-jobs.xml'), { source: 'wwr', baseUrl: 'https://weworkremotely.com/' }).find((p) =>
        p.url?.endsWith('/kitces-com-senior-director-of-platform-product'),
      )!,
  },
];

const subscriber = (keyword: string): MatchProfile & { id: string } => ({
  id: keyword,
  keywords: [keyword],
  excludes: [],
  minPay: NO_MIN_PAY,
});

describe('a keyword a real posting names only deep in its text matches it', () => {
  it.each(cases)('$what: “$keyword” after the first 5,000 characters', ({ keyword, posting: read }) => {
    const posting = read();
    const first = keywordPattern(keyword).exec(posting.description);
    expect(first?.index).toBeGreaterThan(5_000);
    expect(keywordPattern(keyword).test(posting.title)).toBe(false);
    expect(posting.skills.some((skill) => keywordPattern(keyword).test(skill))).toBe(false);

    const [match, ...more] = matchPostings([posting], [subscriber(keyword), subscriber('cobol')]);
    expect(more).toEqual([]);
    expect(match.subscriber.id).toBe(keyword);
    expect(match.reasons).toEqual([`“${keyword}” in the description`]);

    // What the old 2,000-character cut kept never named it.
    expect(matchPostings([{ ...posting, description: capText(posting.description, 2_000) }], [subscriber(keyword)])).toEqual([]);
  });
});
