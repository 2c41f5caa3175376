import type { MinimumPayKind } from '../../lib/pay/minimum-pay';
import type { QueryField, QueryNode } from '../../lib/query/query-tree';

/** Trees written compactly, positions left out: the tests compare trees with `at` removed. */
export type Shape =
  | { kind: 'term'; field: QueryField | null; text: string; phrase: boolean }
  | { kind: 'remote'; remote: boolean }
  | { kind: 'pay'; pay: MinimumPayKind; amount: number; currency: string | null }
  | { kind: 'and' | 'or'; parts: Shape[] }
  | { kind: 'not'; part: Shape };

export const term = (text: string, field: QueryField | null = null): Shape => ({ kind: 'term', field, text, phrase: false });
export const phrase = (text: string, field: QueryField | null = null): Shape => ({ kind: 'term', field, text, phrase: true });
export const remote = (value: boolean): Shape => ({ kind: 'remote', remote: value });
export const pay = (kind: MinimumPayKind, amount: number, currency: string | null = null): Shape => ({
  kind: 'pay',
  pay: kind,
  amount,
  currency,
});
export const and = (...parts: Shape[]): Shape => ({ kind: 'and', parts });
export const or = (...parts: Shape[]): Shape => ({ kind: 'or', parts });
export const not = (part: Shape): Shape => ({ kind: 'not', part });

/** A tree without its positions. */
export function shapeOf(node: QueryNode): Shape {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { kind: node.kind, parts: node.parts.map(shapeOf) };
    case 'not':
      return { kind: 'not', part: shapeOf(node.part) };
    default: {
      const { at: _at, ...rest } = node;
      return rest;
    }
  }
}
