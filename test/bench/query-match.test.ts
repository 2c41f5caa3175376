import { beforeAll, describe, expect, it } from 'vitest';
import type { Posting } from '../../lib/feeds/posting';
import { matchQuery } from '../../lib/matching/query/evaluate-query';
import { parseQuery } from '../../lib/query/parse-query';
import { printQuery } from '../../lib/query/print-query';
import { readCorpusPostings } from '../../scripts/bench/corpus-postings';
import { benchQueries, clauseCount, indexQueries, keywordProfiles, matchQueries } from '../../scripts/bench/query-bench';

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

  it('loses no match through the index: the lookup and the scans find exactly what matchQuery finds over every pair', () => {
    let matches = 0;
    let scans = 0;
    let offeredFewer = 0;
    for (const seed of SEEDS) {
      const queries = benchQueries(50, seed);
      const index = indexQueries(queries);
      const pass = matchQueries(postings, index);
      const everyPair = postings.flatMap((posting) =>
        queries.filter((query) => matchQuery(query.tree, posting).matches).map((query) => ({ posting: posting.id, subscriber: query.id })),
      );
      expect(pass.matches.map(pairKey).sort()).toEqual(everyPair.map(pairKey).sort());
      matches += everyPair.length;
      scans += index.scans.length;
      if (pass.candidates < postings.length * queries.length) offeredFewer++;
    }
    // The check means something: pairs match, some queries are scans, and the lookup does narrow the candidates.
    expect(matches).toBeGreaterThan(0);
    expect(scans).toBeGreaterThan(0);
    expect(offeredFewer).toBe(SEEDS.length);
  });

  it("keeps today's figure comparable: every subscriber has a keyword profile, a query's NOT terms its excludes", () => {
    const queries = benchQueries(50, 1);
    const profiles = keywordProfiles(queries);
    expect(profiles.map((p) => p.id)).toEqual(queries.map((q) => q.id));
    for (const [i, query] of queries.entries()) {
      for (const keyword of profiles[i].keywords) expect(query.text.toLowerCase()).toContain(keyword);
      if (/(^| )(-|NOT )/.test(query.text)) expect(profiles[i].excludes.length).toBeGreaterThan(0);
    }
  });
});
