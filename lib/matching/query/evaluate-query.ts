import type { Posting } from '../../feeds/posting';
import { checkPay, DEFAULT_MINIMUM_CURRENCY, NO_MIN_PAY, type MinimumPayKind } from '../../pay/minimum-pay';
import { readPostingText, type MatchedText, type PatternCache, type PostingText } from '../posting-text';
import { keywordPattern } from '../text';
import type { QueryField, QueryNode } from '../../query/query-tree';

/** What a query reads of a posting: its whole text, the fields a term can name, remote and pay. */
export type QueryPosting = MatchedText & Pick<Posting, 'source' | 'budget' | 'company' | 'location' | 'remote'>;

/**
 * One posting as a query reads it: the whole text through readPostingText (each term looked for
 * once per posting, however many queries use it, with today's first-token shortcut), and each
 * (field, term) pair looked for once too. Fields are short (at most 300 chars), so they have no
 * shortcut of their own; the cache is what keeps many subscribers sharing `company:acme` cheap.
 */
export type QueryText = PostingText & { fieldHas(field: QueryField, term: string): boolean };

const patternOf = (patterns: PatternCache, term: string) => {
  let pattern = patterns.get(term);
  if (!pattern) patterns.set(term, (pattern = keywordPattern(term)));
  return pattern;
};

/** The text of a field a term can name; null when the posting does not state it (nothing matches it). */
function fieldText(posting: QueryPosting, field: QueryField): string | null {
  if (field === 'title') return posting.title;
  if (field === 'company') return posting.company ?? null;
  if (field === 'location') return posting.location ?? null;
  // The source id ("remoteok", "upwork-dev"): the one name every posting carries; word-bounded like any term.
  return posting.source;
}

export function readQueryText(posting: QueryPosting, patterns: PatternCache = new Map()): QueryText {
  const whole = readPostingText(posting, patterns);
  // Made on the first field term: most passes' queries name none.
  let found: Map<string, boolean> | null = null;
  return {
    fieldNaming: whole.fieldNaming,
    fieldHas(field, term) {
      found ??= new Map();
      const key = `${field}\u0000${term}`;
      const known = found.get(key);
      if (known !== undefined) return known;
      const text = fieldText(posting, field);
      const has = text !== null && patternOf(patterns, term).test(text);
      found.set(key, has);
      return has;
    },
  };
}

// "Remote (EU)", "Remote - US", "Fully remote": the same word the email's employer line trusts.
const SAYS_REMOTE = keywordPattern('remote');

/**
 * Whether the job is remote: true when the source says so or its location names it (the rule the
 * email's employer line follows, lib/mail/compose-email.tsx), false when the source says it is not,
 * null when nothing says (then neither remote:yes nor remote:no matches).
 */
export function postingRemote(posting: Pick<Posting, 'remote' | 'location'>): boolean | null {
  if (posting.remote === true || SAYS_REMOTE.test(posting.location ?? '')) return true;
  return posting.remote === false ? false : null;
}

/**
 * How a pay clause reads the posting's pay, as a pay minimum of that kind would (lib/pay/minimum-pay.ts
 * checkPay): `below` refuses; `meets` is a reason; `none` and `not_compared` (no pay of that kind, or
 * pay in another currency or none stated) pass without being one.
 */
function payOutcome(node: { pay: MinimumPayKind; amount: number; currency: string | null }, posting: QueryPosting, currency: string) {
  const minimum = { amount: node.amount, currency: node.currency ?? currency };
  return checkPay({ ...NO_MIN_PAY, [node.pay]: minimum }, posting.budget).outcome;
}

export type MatchOptions = {
  /** The subscriber's chosen currency: a pay clause that names none compares in it. */
  currency: string;
};

export type QueryMatch = {
  matches: boolean;
  /**
   * The positive clauses that made it match, in the query's order: terms, remote, and pay that met
   * its amount (not pay that passed only because the posting states none of that kind or another
   * currency). Never a clause under a NOT, nor one in an OR alternative that did not hold. Empty
   * when the query does not match.
   */
  matched: QueryNode[];
};

type Reader = { posting: QueryPosting; text: QueryText; currency: string };

function holds(node: QueryNode, reader: Reader): boolean {
  switch (node.kind) {
    case 'term':
      return node.field === null ? reader.text.fieldNaming(node.text) !== null : reader.text.fieldHas(node.field, node.text);
    case 'remote':
      return postingRemote(reader.posting) === node.remote;
    case 'pay':
      return payOutcome(node, reader.posting, reader.currency) !== 'below';
    // Short-circuits: a posting the query does not match costs only the lookups that decide it.
    case 'and':
      return node.parts.every((part) => holds(part, reader));
    case 'or':
      return node.parts.some((part) => holds(part, reader));
    case 'not':
      return !holds(node.part, reader);
  }
}

/** The clauses of a node that holds which are reasons for it (each lookup is cached, so this re-walk is cheap). */
function collect(node: QueryNode, reader: Reader, into: QueryNode[]): void {
  switch (node.kind) {
    case 'term':
    case 'remote':
      into.push(node);
      return;
    case 'pay':
      if (payOutcome(node, reader.posting, reader.currency) === 'meets') into.push(node);
      return;
    case 'and':
    case 'or':
      for (const part of node.parts) if (holds(part, reader)) collect(part, reader, into);
      return;
    case 'not':
      return;
  }
}

/**
 * Whether a posting fits a query, and the clauses that say why. `text` is the posting read once for
 * every query of one matching pass (readQueryText with the pass's pattern cache); read anew when absent.
 */
export function matchQuery(
  tree: QueryNode,
  posting: QueryPosting,
  text: QueryText = readQueryText(posting),
  options: MatchOptions = { currency: DEFAULT_MINIMUM_CURRENCY },
): QueryMatch {
  const reader: Reader = { posting, text, currency: options.currency };
  if (!holds(tree, reader)) return { matches: false, matched: [] };
  const matched: QueryNode[] = [];
  collect(tree, reader, matched);
  return { matches: true, matched };
}
