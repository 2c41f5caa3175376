import { firstToken } from '../text';
import type { QueryNode } from '../../query/query-tree';

/**
 * What the keyword lookup (lib/matching/keyword-lookup.ts) files a query under, so that matching
 * costs grow with the postings a query could match, not with every posting × every query:
 * - `terms`: index the query under each of these, exactly as a subscriber's keywords are indexed
 *   (by first token). The contract: for every posting the query matches, the first token of at
 *   least one of them is among the posting's words (title, skills, description, tokenised as the
 *   lookup does). One term when the query has a required one; each alternative of one OR otherwise.
 * - `scan`: nothing in the query is required to be in the text (only company:, location:, source:,
 *   remote:, pay, or NOTs): the query must be checked against every posting of a run, so it costs
 *   what every subscriber used to (postings × such queries). docs/query.md "Matching" says so.
 */
export type QueryIndex = { kind: 'terms'; terms: string[] } | { kind: 'scan' };

/**
 * Alternatives one of which must be in the whole text when `node` holds (when it does not hold, if
 * `negated`); null when no such list can be named. A `title:` term counts: the title is part of the
 * whole text. company:, location: and source: name other text, remote and pay no words at all.
 */
function required(node: QueryNode, negated: boolean): string[] | null {
  switch (node.kind) {
    case 'term':
      return !negated && (node.field === null || node.field === 'title') && firstToken(node.text) !== null ? [node.text] : null;
    case 'remote':
    case 'pay':
      return null;
    case 'not':
      return required(node.part, !negated);
    case 'and':
    case 'or':
      // NOT over an AND holds when some part does not hold (an OR of the negated parts); NOT over an OR, the reverse.
      return (node.kind === 'and') !== negated ? narrowest(node.parts, negated) : everyAlternative(node.parts, negated);
  }
}

/** Every part must hold: any one part's list will do; the one that looks rarest is the cheapest. */
function narrowest(parts: QueryNode[], negated: boolean): string[] | null {
  let best: string[] | null = null;
  for (const part of parts) {
    const list = required(part, negated);
    if (list && (best === null || rarer(list, best))) best = list;
  }
  return best;
}

/** One part must hold: only a list naming an alternative for every part will do. */
function everyAlternative(parts: QueryNode[], negated: boolean): string[] | null {
  const all: string[] = [];
  for (const part of parts) {
    const list = required(part, negated);
    if (!list) return null;
    for (const term of list) if (!all.some((known) => firstToken(known) === firstToken(term))) all.push(term);
  }
  return all.length > 0 ? all : null;
}

// Fewer alternatives first; then a longer shortest first token, since long words are the rare ones
// ("kubernetes" fills a smaller bucket than "go"). The lookup buckets by first token, so that is what counts.
const shortestToken = (list: string[]) => Math.min(...list.map((term) => firstToken(term)!.length));
const rarer = (a: string[], b: string[]) => a.length < b.length || (a.length === b.length && shortestToken(a) > shortestToken(b));

export function indexTermsOf(tree: QueryNode): QueryIndex {
  const terms = required(tree, false);
  return terms ? { kind: 'terms', terms } : { kind: 'scan' };
}
