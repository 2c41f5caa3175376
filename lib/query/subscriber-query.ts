import { queryOfKeywords } from './keywords-as-query';
import { parseQuery } from './parse-query';
import { printQuery } from './print-query';
import type { QueryError, QueryNode } from './query-tree';
import { MAX_KEYWORD_LENGTH } from './keyword-term';

/**
 * A subscriber's query as stored and as matched (docs/query.md "On a subscriber").
 *
 * `users/{uid}.query` holds the text; `keywords` and `excludes` beside it are the simple form the
 * pages edit. A subscription made with the simple form stores the canonical text of its keywords
 * (`keywordQueryText`): that query is built from the lists, never parsed, so the lists' own bounds
 * (25 and 25 terms of 60 characters, above a typed query's 500 characters and 30 clauses) still
 * hold. A query written in the "Advanced" field is stored as typed, parsed each run, and its
 * keywords and excludes are what the simple form can show of it (`simpleFormOf`).
 */

/** What a subscriber's query is read from: the stored text, and the lists it is built from when it is theirs. */
export type QueryProfile = { keywords: string[]; excludes: string[]; query?: string };

/** The keyword lists' own bounds: a query the simple form can say exactly stays within them. */
export const SIMPLE_FORM_LIMITS = { keywords: 25, excludes: 25 } as const;

/**
 * The longest query text a form may post back: the canonical text of the longest lists (every
 * term quoted, " OR " between keywords, " -" before each exclude), which a subscriber's page shows
 * and posts back unchanged. A typed query is held to QUERY_LIMITS by the parser; this bounds a
 * body before any parsing.
 */
export const MAX_QUERY_TEXT_LENGTH =
  SIMPLE_FORM_LIMITS.keywords * (MAX_KEYWORD_LENGTH + 2) +
  (SIMPLE_FORM_LIMITS.keywords - 1) * ' OR '.length +
  SIMPLE_FORM_LIMITS.excludes * (MAX_KEYWORD_LENGTH + 4);

/** The canonical text of a keyword subscription: any keyword, none of the excludes. */
export const keywordQueryText = (keywords: string[], excludes: string[]) => printQuery(queryOfKeywords(keywords, excludes));

/**
 * Whether the stored query is the one the keyword lists say (every subscription from before
 * queries, once migrated, and every one the simple form saved). A document written before the
 * field has no query: its keywords are its query, as they always were.
 */
export function isKeywordQuery(profile: QueryProfile): boolean {
  if (profile.query === undefined) return true;
  return profile.keywords.length > 0 && profile.query === keywordQueryText(profile.keywords, profile.excludes);
}

/**
 * The tree a subscriber is matched with. A keyword query is built from the lists (no parse, no
 * typed bounds); a written one is parsed. A stored text that no longer parses (it never should: it
 * was parsed when saved) falls back to the keyword lists saved beside it rather than match nothing.
 */
export function queryOf(profile: QueryProfile): QueryNode | null {
  if (!isKeywordQuery(profile)) {
    const known = parsedQueries.get(profile);
    if (known && known.text === profile.query) return known.tree;
    const parsed = parseQuery(profile.query!);
    if (parsed.ok) return rememberQuery(profile, parsed.tree);
  }
  return profile.keywords.length > 0 ? queryOfKeywords(profile.keywords, profile.excludes) : null;
}

/**
 * Written queries already parsed, by the profile they were parsed for (with the text they were
 * parsed from, so a profile whose query changed is parsed again): a run decodes a written query
 * from the match index once, and its matching pass reuses that tree instead of parsing it again.
 */
const parsedQueries = new WeakMap<object, { text: string; tree: QueryNode }>();

/** Keeps a profile's written query as parsed, for queryOf to find; answers the tree. */
export function rememberQuery(profile: QueryProfile, tree: QueryNode): QueryNode {
  if (profile.query !== undefined) parsedQueries.set(profile, { text: profile.query, tree });
  return tree;
}

/** The query's text as the "Advanced" field shows it: the stored one, or the canonical text of the lists. */
export const queryTextOf = (profile: QueryProfile) =>
  profile.query ?? (profile.keywords.length > 0 ? keywordQueryText(profile.keywords, profile.excludes) : '');

/**
 * What the simple form shows of a query. `exact`: the query is "any of these keywords, none of
 * these excludes", within the lists' bounds, so saving the lists again changes nothing. Otherwise
 * the lists are its words: every term it looks for in the whole text or the title (not under a
 * NOT), and every term it leaves out at the top; what they cannot say (fields, remote, pay, the
 * shape of ANDs and ORs) only the query holds.
 */
export function simpleFormOf(tree: QueryNode): { keywords: string[]; excludes: string[]; exact: boolean } {
  const keywords: string[] = [];
  const excludes: string[] = [];
  const add = (list: string[], text: string) => {
    if (!list.includes(text)) list.push(text);
  };
  const walk = (node: QueryNode, negated: boolean) => {
    if (node.kind === 'term') {
      if (!negated && (node.field === null || node.field === 'title')) add(keywords, node.text);
    } else if (node.kind === 'and' || node.kind === 'or') node.parts.forEach((part) => walk(part, negated));
    else if (node.kind === 'not') walk(node.part, !negated);
  };
  walk(tree, false);
  for (const part of tree.kind === 'and' ? tree.parts : [tree])
    if (part.kind === 'not' && part.part.kind === 'term' && part.part.field === null) add(excludes, part.part.text);
  const within = keywords.length > 0 && keywords.length <= SIMPLE_FORM_LIMITS.keywords && excludes.length <= SIMPLE_FORM_LIMITS.excludes;
  const exact = within && keywordQueryText(keywords, excludes) === printQuery(tree);
  return {
    keywords: keywords.slice(0, SIMPLE_FORM_LIMITS.keywords),
    excludes: excludes.slice(0, SIMPLE_FORM_LIMITS.excludes),
    exact,
  };
}

/** A profile's query fields as they are stored: the text, and the lists the simple form shows. */
export type StoredQuery = { query: string; keywords: string[]; excludes: string[] };

/**
 * What a form or an operator's input asks for, as it is stored. A written query (`query`, not
 * blank) wins and is parsed, with its error (position and sentence) when it does not; otherwise the
 * keyword lists are the query.
 */
export function storedQueryOf(input: {
  keywords: string[];
  excludes: string[];
  query?: string | null;
}): { ok: true; stored: StoredQuery } | { ok: false; error: QueryError } {
  const written = input.query?.trim() ?? '';
  if (written === '') {
    if (input.keywords.length === 0) return { ok: false, error: { at: 0, message: 'enter at least one keyword' } };
    return {
      ok: true,
      stored: { query: keywordQueryText(input.keywords, input.excludes), keywords: input.keywords, excludes: input.excludes },
    };
  }
  const parsed = parseQuery(written);
  if (!parsed.ok) return parsed;
  const simple = simpleFormOf(parsed.tree);
  // A written query the lists say exactly is stored as their canonical text: one spelling per meaning.
  const query = simple.exact ? keywordQueryText(simple.keywords, simple.excludes) : written;
  return { ok: true, stored: { query, keywords: simple.keywords, excludes: simple.excludes } };
}

/** A form's subscription as it would be stored, or why not: the field at fault, and for a query where in it. */
export type ResolvedQuery = { ok: true; stored: StoredQuery } | { ok: false; field: 'query' | 'keywords'; message: string; at?: number };

/**
 * Which of a form's two ways of saying it wins (the simple form's lists, or the "Advanced" query),
 * given what is stored: the query when its text was changed (or, at signup, written at all); else
 * the lists when they were changed; else what is stored, kept as it is, so saving a page with an
 * advanced query and untouched lists does not flatten the query into its words. A page whose
 * script keeps both in step posts a query that says what the lists say, so either reading agrees.
 */
export function resolveProfileQuery(
  posted: { keywords: string[]; excludes: string[]; query?: string | null },
  stored?: QueryProfile,
): ResolvedQuery {
  const written = saysTheLists(posted) ? '' : (posted.query?.trim() ?? '');
  const storedText = stored ? queryTextOf(stored) : '';
  if (written !== '' && written !== storedText) {
    const parsed = storedQueryOf({ ...posted, query: written });
    return parsed.ok ? parsed : { ok: false, field: 'query', message: parsed.error.message, at: parsed.error.at };
  }
  const listsUnchanged = stored !== undefined && sameList(posted.keywords, stored.keywords) && sameList(posted.excludes, stored.excludes);
  if (stored && listsUnchanged && storedText !== '')
    return { ok: true, stored: { query: storedText, keywords: stored.keywords, excludes: stored.excludes } };
  if (posted.keywords.length === 0) return { ok: false, field: 'keywords', message: 'enter at least one keyword' };
  return {
    ok: true,
    stored: { query: keywordQueryText(posted.keywords, posted.excludes), keywords: posted.keywords, excludes: posted.excludes },
  };
}

/**
 * The written query is the lists' own canonical text: what a page's script writes into the
 * "Advanced" field as the keywords are typed. It is read as the lists, not parsed: the lists' bounds
 * (25 and 25) are above a typed query's, and a list's error belongs to the list's field.
 */
export const saysTheLists = (posted: { keywords: string[]; excludes: string[]; query?: string | null }) =>
  posted.keywords.length > 0 && posted.query?.trim() === keywordQueryText(posted.keywords, posted.excludes);

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item, i) => item === b[i]);
