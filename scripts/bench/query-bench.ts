/**
 * The parts of npm run bench:query (query-match.ts) a test can run on tiny sizes: subscribers'
 * queries generated from the bench vocabulary, the same subscribers as today's keyword profiles, and
 * one matching pass of queries through the keyword lookup (their index terms as keywords, the scans
 * checked against every posting).
 */
import type { Posting } from '../../lib/feeds/posting';
import { buildKeywordLookup, type MatchProfile } from '../../lib/matching/keyword-lookup';
import { matchQuery, readQueryText } from '../../lib/matching/query/evaluate-query';
import { indexTermsOf } from '../../lib/matching/query/index-terms';
import { parseQuery } from '../../lib/query/parse-query';
import { printQuery } from '../../lib/query/print-query';
import type { QueryNode } from '../../lib/query/query-tree';
import type { PatternCache } from '../../lib/matching/posting-text';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';
import { EXCLUDES, seededRandom, VOCABULARY } from './bench-vocabulary';

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

/** The terms a query looks for in the whole text, apart from those under a NOT (which are its excludes). */
function termsOf(node: QueryNode, negated: boolean, into: { keywords: Set<string>; excludes: Set<string> }): void {
  if (node.kind === 'term' && (node.field === null || node.field === 'title')) (negated ? into.excludes : into.keywords).add(node.text);
  else if (node.kind === 'not') termsOf(node.part, !negated, into);
  else if (node.kind === 'and' || node.kind === 'or') for (const part of node.parts) termsOf(part, negated, into);
}

/**
 * The same subscribers as today's keyword profiles: every term a query looks for as a keyword, every
 * term under a NOT as an exclude (a query of only remote, pay and other fields keeps no keyword, and
 * today's lookup never offers it a posting).
 */
export function keywordProfiles(queries: QuerySubscriber[]): (MatchProfile & { id: string })[] {
  return queries.map(({ id, tree }) => {
    const terms = { keywords: new Set<string>(), excludes: new Set<string>() };
    termsOf(tree, false, terms);
    return { id, keywords: [...terms.keywords], excludes: [...terms.excludes], minPay: NO_MIN_PAY };
  });
}

type Indexed = MatchProfile & { of: QuerySubscriber };

/** Queries filed as matching will file them: under their index terms in the real keyword lookup, or as scans. */
export function indexQueries(queries: QuerySubscriber[]) {
  const indexed: Indexed[] = [];
  const scans: QuerySubscriber[] = [];
  for (const query of queries) {
    const index = indexTermsOf(query.tree);
    if (index.kind === 'scan') scans.push(query);
    else indexed.push({ keywords: index.terms, excludes: [], minPay: NO_MIN_PAY, of: query });
  }
  return { lookup: buildKeywordLookup(indexed), scans };
}

export type QueryPass = { matches: { posting: string; subscriber: string }[]; candidates: number; scanChecks: number };

/**
 * One matching pass: for each posting, the queries the lookup offers and every scan, the posting read
 * once for all of them (one pattern cache for the pass), each candidate decided by matchQuery.
 * `only: 'scans'` checks the scans alone, to state what they cost.
 */
export function matchQueries(postings: Posting[], index: ReturnType<typeof indexQueries>, only?: 'scans'): QueryPass {
  const patterns: PatternCache = new Map();
  const pass: QueryPass = { matches: [], candidates: 0, scanChecks: 0 };
  for (const posting of postings) {
    const text = readQueryText(posting, patterns);
    const offered = only === 'scans' ? [] : index.lookup.candidatesFor(posting).map((entry) => entry.of);
    pass.candidates += offered.length + index.scans.length;
    pass.scanChecks += index.scans.length;
    for (const query of [...offered, ...index.scans]) {
      if (matchQuery(query.tree, posting, text).matches) pass.matches.push({ posting: posting.id, subscriber: query.id });
    }
  }
  return pass;
}
