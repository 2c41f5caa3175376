/**
 * npm run bench:query — matching subscribers' search queries in memory, beside today's keywords, over
 * the real corpus (test/feeds/adapters/corpus, read by the real adapters). Pure CPU, no emulator:
 * npm run bench:query-store (query-store.ts) measures the same subscribers read from the store.
 *
 * - Parsing: each subscriber's query of 3 to 10 clauses (terms, phrases, OR, NOT, title:, location:,
 *   company:, remote:, rate>= and salary>=) generated as text and parsed; time per query.
 * - Queries: each subscriber as a profile with their query's text, through matchPostings as a run
 *   matches them (the keyword lookup files each query under its index terms, or offers it every
 *   posting as a scan; scorePosting decides on the tree).
 * - Today: the same subscribers as keyword profiles (the lists simpleFormOf shows of their query,
 *   with their canonical text) through the same matchPostings; and bench:match's index (1–5 keywords
 *   each) beside them.
 *
 * Options: --subscribers N (10000), --postings N (500), --repeats N (9).
 */
import { parseArgs } from 'node:util';
import { parseQuery } from '../../lib/query/parse-query';
import { queryOf } from '../../lib/query/subscriber-query';
import { matchPostings } from '../../lib/matching/match-postings';
import { buildKeywordLookup, type MatchProfile } from '../../lib/matching/keyword-lookup';
import { indexTermsOf } from '../../lib/matching/query/index-terms';
import { keywordSubscribers } from './bench-vocabulary';
import { benchPostings, benchProfiles, benchQueries, clauseCount } from './query-bench';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '10000' },
    postings: { type: 'string', default: '500' },
    repeats: { type: 'string', default: '9' },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
const POSTINGS = Number(values.postings);
const REPEATS = Number(values.repeats);

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const ms = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;

/** Milliseconds of one pass, the median over REPEATS, the passes taking turns so a shared machine slows them alike. */
function timePasses(passes: (() => unknown)[]): number[] {
  passes.forEach((pass) => pass()); // unmeasured: regexes and the JIT warm up
  const runs = passes.map(() => [] as number[]);
  for (let i = 0; i < REPEATS; i++) {
    passes.forEach((pass, j) => {
      const started = process.hrtime.bigint();
      pass();
      runs[j].push(ms(started));
    });
  }
  return runs.map(median);
}

async function main() {
  console.log(`Node ${process.version}: ${SUBSCRIBERS} subscribers, ${POSTINGS} postings, ${REPEATS} repeats`);
  const postings = await benchPostings(POSTINGS);

  let started = process.hrtime.bigint();
  const queries = benchQueries(SUBSCRIBERS);
  const generated = ms(started);
  started = process.hrtime.bigint();
  for (const query of queries) parseQuery(query.text);
  const parseMs = ms(started);
  const clauses = queries.map((q) => clauseCount(q.tree));
  console.log(
    `\nParsing: ${queries.length} queries (mean ${(queries.reduce((a, q) => a + q.text.length, 0) / queries.length).toFixed(0)} chars, ` +
      `${Math.min(...clauses)}–${Math.max(...clauses)} clauses), ${((parseMs * 1000) / queries.length).toFixed(1)} µs per query ` +
      `(generated, parsed and printed back in ${generated.toFixed(0)} ms)`,
  );

  const profiles = benchProfiles(queries);
  const today = keywordSubscribers(SUBSCRIBERS);
  const scans = profiles.queries.filter((profile) => {
    const tree = queryOf(profile);
    return tree !== null && indexTermsOf(tree).kind === 'scan';
  });
  const candidatesOf = (subscribers: MatchProfile[]) => {
    const lookup = buildKeywordLookup(subscribers);
    return (postings.reduce((total, posting) => total + lookup.candidatesFor(posting).length, 0) / postings.length).toFixed(0);
  };
  const rows: [string, MatchProfile[]][] = [
    ["keywords, 1–5 each (bench:match's index)", today],
    ["keywords: the queries' lists (today)", profiles.keywords],
    ['queries', profiles.queries],
    ['  of which scans', scans],
  ];
  const times = timePasses(
    rows.map(
      ([, subscribers]) =>
        () =>
          matchPostings(postings, subscribers),
    ),
  );
  const [todayTime, keywordTime, queryTime, scanTime] = times;

  const per = (total: number) => (total / postings.length).toFixed(3);
  console.log(`\nMatching through matchPostings, per posting (median of ${REPEATS} passes over ${postings.length} postings):`);
  console.table(
    rows.map(([what, subscribers], i) => ({
      what,
      subscribers: subscribers.length,
      'ms per posting': per(times[i]),
      'candidates per posting': candidatesOf(subscribers),
      matches: matchPostings(postings, subscribers).length,
    })),
  );
  console.log(
    `scans: ${scans.length} of ${queries.length} queries (${((100 * scans.length) / queries.length).toFixed(1)}%), ` +
      `${((100 * scanTime) / queryTime).toFixed(0)}% of the query time; ` +
      `query/keyword time ${(queryTime / keywordTime).toFixed(2)}× (their lists), ${(queryTime / todayTime).toFixed(2)}× (bench:match's index)`,
  );
}

await main();
