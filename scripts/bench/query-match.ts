/**
 * npm run bench:query — matching subscribers' search queries in memory, beside today's keywords, over
 * the real corpus (test/feeds/adapters/corpus, read by the real adapters). Pure CPU, no emulator: the
 * store's reads come when queries are wired into the run.
 *
 * - Parsing: each subscriber's query of 3 to 10 clauses (terms, phrases, OR, NOT, title:, location:,
 *   company:, remote:, rate>= and salary>=) generated as text and parsed; time per query.
 * - Today: the same subscribers as keyword profiles (their queries' terms as keywords, the terms under
 *   a NOT as excludes) through matchPostings; and bench:match's index (1–5 keywords each) beside them.
 * - Queries: each filed under its index terms in the real keyword lookup, or as a scan checked against
 *   every posting; per posting, the candidates read the posting once and matchQuery decides each.
 *
 * Options: --subscribers N (10000), --postings N (500), --repeats N (9).
 */
import { parseArgs } from 'node:util';
import type { Posting } from '../../lib/feeds/posting';
import { parseQuery } from '../../lib/query/parse-query';
import { matchPostings } from '../../lib/matching/match-postings';
import { buildKeywordLookup } from '../../lib/matching/keyword-lookup';
import { keywordSubscribers } from './bench-vocabulary';
import { readCorpusPostings } from './corpus-postings';
import { benchQueries, clauseCount, indexQueries, keywordProfiles, matchQueries } from './query-bench';

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

/** The first `count` corpus postings with a text, taken again (with new ids) when the corpus has fewer. */
async function benchPostings(count: number): Promise<Posting[]> {
  const corpus = (await readCorpusPostings()).flatMap((file) => file.postings).filter((p) => p.description !== '');
  return Array.from({ length: count }, (_, i) => {
    const posting = corpus[i % corpus.length];
    return i < corpus.length ? posting : { ...posting, id: `${posting.id}#${Math.floor(i / corpus.length)}` };
  });
}

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

  const profiles = keywordProfiles(queries);
  const today = keywordSubscribers(SUBSCRIBERS);
  started = process.hrtime.bigint();
  const index = indexQueries(queries);
  const indexMs = ms(started);
  const keywordMatches = matchPostings(postings, profiles).length;
  const candidatesOf = (lookup: { candidatesFor(posting: Posting): unknown[] }) =>
    (postings.reduce((total, posting) => total + lookup.candidatesFor(posting).length, 0) / postings.length).toFixed(0);
  const todayMatches = matchPostings(postings, today).length;
  const full = matchQueries(postings, index);
  const scansOnly = matchQueries(postings, index, 'scans');
  const [todayTime, keywordTime, queryTime, scanTime] = timePasses([
    () => matchPostings(postings, today),
    () => matchPostings(postings, profiles),
    () => matchQueries(postings, index),
    () => matchQueries(postings, index, 'scans'),
  ]);

  const per = (total: number) => (total / postings.length).toFixed(3);
  console.log(`\nMatching, per posting (median of ${REPEATS} passes over ${postings.length} postings):`);
  console.table([
    {
      what: "keywords, 1–5 each (bench:match's index)",
      'ms per posting': per(todayTime),
      'candidates per posting': candidatesOf(buildKeywordLookup(today)),
      matches: todayMatches,
    },
    {
      what: "keywords: the queries' terms",
      'ms per posting': per(keywordTime),
      'candidates per posting': candidatesOf(buildKeywordLookup(profiles)),
      matches: keywordMatches,
    },
    {
      what: 'queries',
      'ms per posting': per(queryTime),
      'candidates per posting': (full.candidates / postings.length).toFixed(0),
      matches: full.matches.length,
    },
    {
      what: '  of which scans',
      'ms per posting': per(scanTime),
      'candidates per posting': (scansOnly.candidates / postings.length).toFixed(0),
      matches: scansOnly.matches.length,
    },
  ]);
  console.log(
    `scans: ${index.scans.length} of ${queries.length} queries (${((100 * index.scans.length) / queries.length).toFixed(1)}%), ` +
      `${((100 * scanTime) / queryTime).toFixed(0)}% of the query time; index built in ${indexMs.toFixed(0)} ms; ` +
      `query/keyword time ${(queryTime / keywordTime).toFixed(2)}× (their terms), ${(queryTime / todayTime).toFixed(2)}× (bench:match's index)`,
  );
}

await main();
