import { firstToken, tokenize } from '../text';
import type { QueryNode } from '../../query/query-tree';

/**
 * What the keyword lookup (lib/matching/keyword-lookup.ts) files a query under, so that matching
 * costs grow with the postings a query could match, not with every posting × every query:
 * - `terms`: index the query under each of these. A whole-text term (a `title:` one too: the title
 *   is in the text) is filed by its first word among the posting's words, exactly as a keyword is;
 *   a `company:`, `location:` or `source:` term, written `company:acme`, by its first word among
 *   the words of that field (a term never holds a colon, so the two cannot be confused). The
 *   contract: for every posting the query matches, the first word of at least one of them is among
 *   the words of the posting's text or field it names. One term when the query has a required
 *   one; each alternative of one OR otherwise.
 * - `scan`: nothing in the query requires a word anywhere (only remote:, pay, or NOTs): the query
 *   must be checked against every posting of a run, so it costs what every subscriber used to
 *   (postings × such queries). docs/query.md "Matching" says so.
 */
export type QueryIndex = { kind: 'terms'; terms: string[] } | { kind: 'scan' };

/** The fields other than the whole text an index term may name. */
export const INDEXED_FIELDS = ['company', 'location', 'source'] as const;
export type IndexedField = (typeof INDEXED_FIELDS)[number];

/** An index term as where to look (`text`, or a field) and the word it is filed by; null for one with no word. */
export function indexTermParts(term: string): { in: 'text' | IndexedField; token: string } | null {
  const colon = term.indexOf(':');
  const field = colon > 0 ? (term.slice(0, colon) as IndexedField) : null;
  const token = firstToken(field ? term.slice(colon + 1) : term);
  if (!token || (field && !INDEXED_FIELDS.includes(field))) return null;
  return { in: field ?? 'text', token };
}

/** The words of a posting an index term's field is looked up in (its text's words come from the lookup itself). */
export function fieldWords(posting: { company?: string | null; location?: string | null; source: string }, field: IndexedField): string[] {
  const text = field === 'company' ? posting.company : field === 'location' ? posting.location : posting.source;
  return text ? tokenize(text) : [];
}

/**
 * Alternatives one of which must be found when `node` holds (when it does not hold, if `negated`);
 * null when no such list can be named. remote and pay name no words at all.
 */
function required(node: QueryNode, negated: boolean): string[] | null {
  switch (node.kind) {
    case 'term': {
      if (negated || firstToken(node.text) === null) return null;
      return [node.field === null || node.field === 'title' ? node.text : `${node.field}:${node.text}`];
    }
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

/** Where and by which word a term is filed: alternatives filed the same way are one. */
const filedAs = (term: string) => {
  const parts = indexTermParts(term)!;
  return `${parts.in}:${parts.token}`;
};

/** One part must hold: only a list naming an alternative for every part will do. */
function everyAlternative(parts: QueryNode[], negated: boolean): string[] | null {
  const all: string[] = [];
  for (const part of parts) {
    const list = required(part, negated);
    if (!list) return null;
    for (const term of list) if (!all.some((known) => filedAs(known) === filedAs(term))) all.push(term);
  }
  return all.length > 0 ? all : null;
}

// Fewer alternatives first; then a longer shortest first word, since long words are the rare ones
// ("kubernetes" fills a smaller bucket than "go"). The lookup buckets by first word, so that is what counts.
const shortestToken = (list: string[]) => Math.min(...list.map((term) => indexTermParts(term)!.token.length));
const rarer = (a: string[], b: string[]) => a.length < b.length || (a.length === b.length && shortestToken(a) > shortestToken(b));

export function indexTermsOf(tree: QueryNode): QueryIndex {
  const terms = required(tree, false);
  return terms ? { kind: 'terms', terms } : { kind: 'scan' };
}
