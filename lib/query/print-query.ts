import type { MinimumPayKind } from '../pay/minimum-pay';
import { PAY_WORDS, type QueryNode } from './query-tree';

/**
 * A tree's canonical text (docs/query.md "Canonical form"): what the migration writes and the
 * "Advanced: write a query" field shows. Parsing it gives the same tree back, positions aside:
 * parentheses only where precedence needs them (an AND inside an OR, an AND or OR under a NOT),
 * each field written on its own term, quotes where a bare word would read otherwise.
 */

const PAY_WORD_OF = Object.fromEntries(Object.entries(PAY_WORDS).map(([word, kind]) => [kind, word])) as Record<MinimumPayKind, string>;

/** A term that must be quoted to read back as itself: several words, or a leading `-` (a NOT). */
export const termNeedsQuotes = (text: string) => text.includes(' ') || text.startsWith('-');

/** 100000 → "100k", 60 → "60", 62.5 → "62.5": the shortest text that reads back as the amount. */
function amountText(amount: number): string {
  return amount >= 1000 && amount % 1000 === 0 ? `${amount / 1000}k` : String(amount);
}

/** One term, remote or pay clause as written: `title:react`, `"senior engineer"`, `rate>=60 EUR`. */
export function describeClause(node: QueryNode): string {
  switch (node.kind) {
    case 'term': {
      const word = node.phrase || termNeedsQuotes(node.text) ? `"${node.text}"` : node.text;
      return node.field ? `${node.field}:${word}` : word;
    }
    case 'remote':
      return `remote:${node.remote ? 'yes' : 'no'}`;
    case 'pay':
      return `${PAY_WORD_OF[node.pay]}>=${amountText(node.amount)}${node.currency ? ` ${node.currency}` : ''}`;
    default:
      return printQuery(node);
  }
}

/** A part as written inside its parent: in parentheses when the parent binds tighter. */
function printPart(part: QueryNode, parent: 'and' | 'or' | 'not'): string {
  const text = printQuery(part);
  const tighter = (parent === 'or' && part.kind === 'and') || (parent === 'not' && (part.kind === 'and' || part.kind === 'or'));
  return tighter ? `(${text})` : text;
}

export function printQuery(tree: QueryNode): string {
  switch (tree.kind) {
    case 'and':
      return tree.parts.map((part) => printPart(part, 'and')).join(' ');
    case 'or':
      return tree.parts.map((part) => printPart(part, 'or')).join(' OR ');
    case 'not':
      return `-${printPart(tree.part, 'not')}`;
    default:
      return describeClause(tree);
  }
}
