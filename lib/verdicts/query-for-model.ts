import { chosenCurrencyOf, type MinimumPayKind, type MinPay } from '../pay/minimum-pay';
import type { QueryNode } from '../query/query-tree';
import { queryOf, queryTextOf, type QueryProfile } from '../query/subscriber-query';

/**
 * The subscriber's query as the model reads it: the text they wrote, and what it means as plain
 * JSON (`means`), so the model does not have to know the query language to respect it. Each node
 * is one of
 *   {"term": "react", "in": "anywhere" | "title" | "company" | "location" | "source"}
 *   {"remote": true | false}
 *   {"pay": "fixed" | "hourly" | "yearly", "atLeast": 60, "currency": "USD"}
 *   {"all": [nodes]}  {"any": [nodes]}  {"not": node}
 * A pay clause's currency is resolved (the subscriber's chosen one when the query names none), so
 * the JSON says exactly what was compared. Built from the parsed tree, never from the text by
 * string work, and sent as data: it is the subscriber's, like `about`, and is read as data too.
 */
export type ModelQueryNode =
  | { term: string; in: 'anywhere' | 'title' | 'company' | 'location' | 'source' }
  | { remote: boolean }
  | { pay: MinimumPayKind; atLeast: number; currency: string }
  | { all: ModelQueryNode[] }
  | { any: ModelQueryNode[] }
  | { not: ModelQueryNode };

export type ModelQuery = { text: string; means: ModelQueryNode };

function nodeForModel(node: QueryNode, currency: string): ModelQueryNode {
  switch (node.kind) {
    case 'term':
      return { term: node.text, in: node.field ?? 'anywhere' };
    case 'remote':
      return { remote: node.remote };
    case 'pay':
      return { pay: node.pay, atLeast: node.amount, currency: node.currency ?? currency };
    case 'and':
      return { all: node.parts.map((part) => nodeForModel(part, currency)) };
    case 'or':
      return { any: node.parts.map((part) => nodeForModel(part, currency)) };
    case 'not':
      return { not: nodeForModel(node.part, currency) };
  }
}

/** The query for the model; null for a profile with nothing to look for (never matched, so never judged). */
export function queryForModel(profile: QueryProfile & { minPay: MinPay }): ModelQuery | null {
  const tree = queryOf(profile);
  return tree ? { text: queryTextOf(profile), means: nodeForModel(tree, chosenCurrencyOf(profile.minPay)) } : null;
}
