import { normaliseKeyword } from './keyword-term';
import { termNeedsQuotes } from './print-query';
import type { QueryNode } from './query-tree';

/**
 * A subscription of keywords and excludes as one query: any keyword, and none of the excludes —
 * what it has always meant, in the form the migration writes and the simple form edits.
 * `react native` becomes a phrase (several words are one term either way; the quotes say so when
 * printed). Positions are 0: the tree was not typed. The keyword lists' own bounds (25 and 25)
 * are above the typed query's (QUERY_LIMITS): the tree is built, not parsed, so it is not refused.
 */
export function queryOfKeywords(keywords: string[], excludes: string[]): QueryNode {
  if (keywords.length === 0) throw new Error('a subscription has at least one keyword');
  const term = (keyword: string): QueryNode => {
    const text = normaliseKeyword(keyword);
    return { kind: 'term', field: null, text, phrase: termNeedsQuotes(text), at: 0 };
  };
  const wanted: QueryNode = keywords.length === 1 ? term(keywords[0]) : { kind: 'or', parts: keywords.map(term), at: 0 };
  if (excludes.length === 0) return wanted;
  return { kind: 'and', parts: [wanted, ...excludes.map((exclude): QueryNode => ({ kind: 'not', part: term(exclude), at: 0 }))], at: 0 };
}
