import type { Posting } from '../../lib/feeds/posting';
import type { MinimumPayKind } from '../../lib/pay/minimum-pay';
import type { QueryField, QueryNode } from '../../lib/query/query-tree';

/** Trees as the parser would make them, written short: the evaluator's tests do not go through text. */
export const term = (text: string, field: QueryField | null = null): QueryNode => ({
  kind: 'term',
  field,
  text,
  phrase: text.includes(' '),
  at: 0,
});
export const and = (...parts: QueryNode[]): QueryNode => ({ kind: 'and', parts, at: 0 });
export const or = (...parts: QueryNode[]): QueryNode => ({ kind: 'or', parts, at: 0 });
export const not = (part: QueryNode): QueryNode => ({ kind: 'not', part, at: 0 });
export const remote = (yes: boolean): QueryNode => ({ kind: 'remote', remote: yes, at: 0 });
export const pay = (kind: MinimumPayKind, amount: number, currency: string | null = null): QueryNode => ({
  kind: 'pay',
  pay: kind,
  amount,
  currency,
  at: 0,
});

export const posting = (fields: Partial<Posting>): Posting => ({
  id: 'src_1',
  source: 'src',
  guid: null,
  title: '',
  url: null,
  description: '',
  budget: null,
  skills: [],
  publishedAt: null,
  ...fields,
});
