import type { MinimumPayKind } from '../pay/minimum-pay';

/**
 * A subscriber's search query as one tree (docs/query.md): what the parser (parse-query.ts) makes
 * of the text, and what matching, the preview, the model's input and an email's reasons read. Every
 * node keeps where it starts in the text (`at`, 0-based, in UTF-16 units as JavaScript counts), so an
 * error or a reason can point at it.
 *
 *   react OR vue -wordpress title:"senior engineer" remote:yes rate>=60
 *   → and[ or[term react, term vue], not[term wordpress], term(title) "senior engineer", remote yes, pay hourly ≥ 60 ]
 */

/** Where a term is looked for: the whole text (title, skills, description) unless a field is named. */
export const QUERY_FIELDS = ['title', 'company', 'location', 'source'] as const;
export type QueryField = (typeof QUERY_FIELDS)[number];

/** What each pay word names: `salary` the yearly kind, `rate` the hourly, `fixed` a fixed price (lib/pay). */
export const PAY_WORDS: Record<string, MinimumPayKind> = { salary: 'yearly', rate: 'hourly', fixed: 'fixed' };

export type QueryNode =
  /**
   * A word or words to find, with today's keyword rules (case-insensitive, word-bounded, marks part
   * of a word, any script: lib/subscribers/keyword-pattern.ts). `text` is as normalised as a keyword
   * (normaliseKeyword); `phrase` says it was quoted (several words are one term either way).
   */
  | { kind: 'term'; field: QueryField | null; text: string; phrase: boolean; at: number }
  /** `remote:yes` / `remote:no`. */
  | { kind: 'remote'; remote: boolean; at: number }
  /**
   * `salary>=100k`, `rate>=60 EUR`, `fixed>=500`: pay of that kind at least `amount`, as a pay
   * minimum decides (lib/pay/minimum-pay.ts): a posting that states no pay of that kind, or states it
   * in another currency, is not refused by it. `currency` null: the subscriber's chosen currency.
   */
  | { kind: 'pay'; pay: MinimumPayKind; amount: number; currency: string | null; at: number }
  /** Every part (implicit AND, or the word AND). */
  | { kind: 'and'; parts: QueryNode[]; at: number }
  /** Any part (`OR`, `|`). */
  | { kind: 'or'; parts: QueryNode[]; at: number }
  /** Not this part (`-part`, `NOT part`). */
  | { kind: 'not'; part: QueryNode; at: number };

/** The bounds of a query, each refused with its own error (docs/query.md "Limits"). */
export const QUERY_LIMITS = {
  /** Characters of the query text. */
  length: 500,
  /** Terms, remote and pay clauses together. */
  clauses: 30,
  /** Nesting of parentheses and NOTs. */
  depth: 6,
} as const;

/** A parse that failed: where (0-based) and what was expected, in a sentence a person reads. */
export type QueryError = { at: number; message: string };

export type ParsedQuery = { ok: true; tree: QueryNode } | { ok: false; error: QueryError };
