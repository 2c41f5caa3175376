import { beforeAll, describe, expect, it } from 'vitest';
import type { Posting } from '../../lib/feeds/posting';
import { buildKeywordLookup } from '../../lib/matching/keyword-lookup';
import { matchPostings } from '../../lib/matching/match-postings';
import { scorePosting } from '../../lib/matching/score-posting';
import { parseQuery } from '../../lib/query/parse-query';
import { printQuery } from '../../lib/query/print-query';
import { isKeywordQuery } from '../../lib/query/subscriber-query';
import { readCorpusPostings } from '../../scripts/bench/corpus-postings';
import { benchProfiles, benchQueries, clauseCount } from '../../scripts/bench/query-bench';

let postings: Posting[] = [];

beforeAll(async () => {
  // 20 real postings spread over the corpus, so several boards and kinds of text take part.
  const corpus = (await readCorpusPostings()).flatMap((file) => file.postings).filter((p) => p.description !== '');
  const step = Math.floor(corpus.length / 20);
  postings = Array.from({ length: 20 }, (_, i) => corpus[i * step]);
});

const SEEDS = [1, 2, 3, 4, 5];
const pairKey = (m: { posting: string; subscriber: string }) => `${m.posting} ${m.subscriber}`;

describe('the query bench', () => {
  it('generates queries of 3 to 10 clauses that parse, and print as text that parses to the same tree', () => {
    for (const seed of SEEDS) {
      for (const query of benchQueries(50, seed)) {
        expect(clauseCount(query.tree)).toBeGreaterThanOrEqual(3);
        expect(clauseCount(query.tree)).toBeLessThanOrEqual(10);
        const again = parseQuery(printQuery(query.tree));
        expect(again.ok && printQuery(again.tree)).toBe(printQuery(query.tree));
      }
    }
  });

  it('is deterministic: the same seed makes the same queries', () => {
    expect(benchQueries(50, 7).map((q) => q.text)).toEqual(benchQueries(50, 7).map((q) => q.text));
  });

  it('loses no match through the real lookup: matchPostings finds exactly the pairs scorePosting accepts over every pair, scans included', () => {
    let matches = 0;
    let scans = 0;
    let offeredFewer = 0;
    for (const seed of SEEDS) {
      const { queries: profiles } = benchProfiles(benchQueries(50, seed));
      const found = matchPostings(postings, profiles).map((m) => ({ posting: m.posting.id, subscriber: m.subscriber.id }));
      const everyPair = postings.flatMap((posting) =>
        profiles
          .filter((profile) => scorePosting(profile, posting).matched)
          .map((profile) => ({ posting: posting.id, subscriber: profile.id })),
      );
      expect(found.map(pairKey).sort()).toEqual(everyPair.map(pairKey).sort());
      matches += everyPair.length;
      const lookup = buildKeywordLookup(profiles);
      scans += lookup.scans;
      const offered = postings.reduce((total, posting) => total + lookup.candidatesFor(posting).length, 0);
      if (offered < postings.length * profiles.length) offeredFewer++;
    }
    // The check means something: pairs match, some queries are scans, and the lookup does narrow the candidates.
    expect(matches).toBeGreaterThan(0);
    expect(scans).toBeGreaterThan(0);
    expect(offeredFewer).toBe(SEEDS.length);
  });

  it('matches each subscriber by the query they wrote, and the same subscriber as today by their keyword lists', () => {
    const queries = benchQueries(50, 1);
    const profiles = benchProfiles(queries);
    expect(profiles.queries.map((p) => p.id)).toEqual(queries.map((q) => q.id));
    expect(profiles.keywords.map((p) => p.id)).toEqual(queries.map((q) => q.id));
    for (const [i, query] of queries.entries()) {
      const written = profiles.queries[i];
      const parsed = parseQuery(written.query!);
      expect(parsed.ok && printQuery(parsed.tree)).toBe(printQuery(query.tree));
      const keywords = profiles.keywords[i];
      // Written, unless it says exactly what its lists say (a few queries of ORs alone).
      expect(isKeywordQuery(written)).toBe(written.query === keywords.query);
      expect(keywords.keywords).toEqual(written.keywords);
      for (const keyword of keywords.keywords) expect(query.text.toLowerCase()).toContain(keyword);
      if (keywords.keywords.length > 0) expect(isKeywordQuery(keywords)).toBe(true);
    }
  });
});
