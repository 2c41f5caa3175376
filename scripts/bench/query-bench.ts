/**
 * The subscribers of npm run bench:query and bench:query-store (query-match.ts, query-store.ts), on
 * any size a test can run: queries generated from the bench vocabulary, each subscriber as a profile
 * with that query (what matchPostings decides on, as a run reads it from the store) and the same
 * subscriber as today's keyword profile; and the real corpus postings both benches match.
 */
import type { Posting } from '../../lib/feeds/posting';
import type { MatchProfile } from '../../lib/matching/keyword-lookup';
import { parseQuery } from '../../lib/query/parse-query';
import { printQuery } from '../../lib/query/print-query';
import type { QueryNode } from '../../lib/query/query-tree';
import { keywordQueryText, simpleFormOf } from '../../lib/query/subscriber-query';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';
import { EXCLUDES, seededRandom, VOCABULARY } from './bench-vocabulary';
import { readCorpusPostings } from './corpus-postings';

const ROLES = ['senior engineer', 'engineer', 'developer', 'designer', 'manager', 'analyst', 'lead', 'staff', 'writer'];
const PLACES = ['berlin', 'london', 'new york', 'europe', 'usa', 'canada', 'remote'];
const COMPANIES = ['stripe', 'gitlab', 'shopify', 'automattic', 'canonical'];

const quote = (text: string) => (text.includes(' ') ? `"${text}"` : text);

type Clause = { text: string; clauses: number };

/**
 * One clause as people type it, by weight: mostly terms, some phrases, OR alternatives, NOTs, fields,
 * remote and pay; with `filtersOnly`, only NOTs, location:, company:, remote and pay (a query with no
 * word it requires, which matching must check against every posting).
 */
function clause(next: () => number, filtersOnly: boolean): Clause {
  const pick = (list: string[]) => list[Math.floor(next() * list.length)];
  const roll = filtersOnly ? 0.65 + next() * 0.35 : next();
  if (filtersOnly && roll >= 0.75 && roll < 0.83) return { text: `location:${quote(pick(PLACES))}`, clauses: 1 };
  if (roll < 0.4) return { text: quote(pick(VOCABULARY)), clauses: 1 };
  if (roll < 0.5) return { text: `"${pick(VOCABULARY.filter((word) => word.includes(' ')))}"`, clauses: 1 };
  if (roll < 0.65) {
    const alternatives = [...new Set(Array.from({ length: 2 + Math.floor(next() * 2) }, () => quote(pick(VOCABULARY))))];
    return { text: `(${alternatives.join(' OR ')})`, clauses: alternatives.length };
  }
  if (roll < 0.75) return { text: next() < 0.5 ? `-${quote(pick(EXCLUDES))}` : `NOT ${quote(pick(EXCLUDES))}`, clauses: 1 };
  if (roll < 0.83) return { text: `title:${quote(pick(ROLES))}`, clauses: 1 };
  if (roll < 0.87) return { text: next() < 0.5 ? `location:${quote(pick(PLACES))}` : `company:${pick(COMPANIES)}`, clauses: 1 };
  if (roll < 0.93) return { text: `remote:${next() < 0.85 ? 'yes' : 'no'}`, clauses: 1 };
  return next() < 0.5
    ? { text: `rate>=${20 + 5 * Math.floor(next() * 17)}`, clauses: 1 }
    : { text: `salary>=${60 + 10 * Math.floor(next() * 15)}k`, clauses: 1 };
}

/** Of every hundred subscribers, how many write a query of filters alone (a remote job paying enough, say). */
const FILTERS_ONLY_PER_HUNDRED = 3;

/** A query of 3 to 10 clauses, as text. */
export function queryText(next: () => number): string {
  const filtersOnly = next() * 100 < FILTERS_ONLY_PER_HUNDRED;
  const target = 3 + Math.floor(next() * 8);
  const parts: string[] = [];
  let clauses = 0;
  while (clauses < target) {
    const part = clause(next, filtersOnly);
    if (clauses + part.clauses > 10) continue;
    parts.push(part.text);
    clauses += part.clauses;
  }
  return parts.join(' ');
}

/** Terms, remote and pay clauses, as the query limits count them. */
export function clauseCount(node: QueryNode): number {
  if (node.kind === 'and' || node.kind === 'or') return node.parts.reduce((total, part) => total + clauseCount(part), 0);
  return node.kind === 'not' ? clauseCount(node.part) : 1;
}

export type QuerySubscriber = { id: string; text: string; tree: QueryNode };

/** `count` subscribers' queries, each parsed from its text; a text that does not parse, or whose printed form does not parse back, is the generator's bug. */
export function benchQueries(count: number, seed = 42): QuerySubscriber[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const text = queryText(next);
    const parsed = parseQuery(text);
    if (!parsed.ok) throw new Error(`query ${i} does not parse: ${text} (${parsed.error.message} at ${parsed.error.at})`);
    if (!parseQuery(printQuery(parsed.tree)).ok) throw new Error(`query ${i} prints as text that does not parse: ${text}`);
    return { id: `s${i}`, text, tree: parsed.tree };
  });
}

export type BenchProfile = MatchProfile & { id: string };

/**
 * Each subscriber twice: `queries`, with their query's printed text as `query` and the lists the
 * simple form shows of it (simpleFormOf), as the store holds a written query; and `keywords`, the
 * same subscriber as today's keyword subscription of those lists, with their canonical text (a query
 * of only fields, remote and pay keeps no keyword: as a keyword profile it has no query and never
 * matches).
 */
export function benchProfiles(queries: QuerySubscriber[]): { queries: BenchProfile[]; keywords: BenchProfile[] } {
  const forms = queries.map(({ id, tree }) => ({ id, text: printQuery(tree), ...simpleFormOf(tree) }));
  return {
    queries: forms.map(({ id, text, keywords, excludes }) => ({ id, keywords, excludes, minPay: NO_MIN_PAY, query: text })),
    keywords: forms.map(({ id, keywords, excludes }) => ({
      id,
      keywords,
      excludes,
      minPay: NO_MIN_PAY,
      ...(keywords.length > 0 ? { query: keywordQueryText(keywords, excludes) } : {}),
    })),
  };
}

/** The first `count` corpus postings with a text, taken again (with new ids) when the corpus has fewer. */
export async function benchPostings(count: number): Promise<Posting[]> {
  const corpus = (await readCorpusPostings()).flatMap((file) => file.postings).filter((p) => p.description !== '');
  return Array.from({ length: count }, (_, i) => {
    const posting = corpus[i % corpus.length];
    return i < corpus.length ? posting : { ...posting, id: `${posting.id}#${Math.floor(i / corpus.length)}` };
  });
}
