import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../lib/query/parse-query';
import { describeClause, printQuery, termNeedsQuotes } from '../../lib/query/print-query';
import { QUERY_FIELDS, QUERY_LIMITS, type QueryNode } from '../../lib/query/query-tree';
import { shapeOf } from './query-builders';

const WORDS = [
  'react',
  'c++',
  'c#',
  'node.js',
  '.net',
  'ci/cd',
  'r&d',
  "o'reilly",
  'e-commerce',
  '日本語',
  'हिन्दी',
  'ünïcödé',
  'or',
  'and',
  'not',
  'title',
  'remote',
  'salary',
  'eur',
  '100k',
  'a-',
  '-net',
];
const LETTERS = [..."abcxyz019éßжя日本ह+#./&'-"];

const word = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.string({ unit: fc.constantFrom(...LETTERS), minLength: 1, maxLength: 8 }).filter((text) => /[\p{L}\p{N}]/u.test(text)),
);
const termNode = fc
  .record({
    words: fc.array(word, { minLength: 1, maxLength: 3 }),
    field: fc.constantFrom(null, ...QUERY_FIELDS),
    quoted: fc.boolean(),
  })
  .map(({ words, field, quoted }): QueryNode => {
    const text = words.join(' ');
    return { kind: 'term', field, text, phrase: quoted || termNeedsQuotes(text), at: 0 };
  });
const clause = fc.oneof(
  termNode,
  fc.boolean().map((remote): QueryNode => ({ kind: 'remote', remote, at: 0 })),
  fc
    .record({
      pay: fc.constantFrom('yearly' as const, 'hourly' as const, 'fixed' as const),
      cents: fc.oneof(
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.integer({ min: 0, max: 10_000 }).map((k) => k * 100_000),
      ),
      currency: fc.constantFrom(null, 'EUR', 'USD', 'GBP', 'JPY'),
    })
    .map(({ pay, cents, currency }): QueryNode => ({ kind: 'pay', pay, amount: cents / 100, currency, at: 0 })),
);
const { node } = fc.letrec<{ node: QueryNode }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthSize: 'small' },
    clause,
    tie('node').map((part): QueryNode => ({ kind: 'not', part, at: 0 })),
    fc
      .record({ kind: fc.constantFrom('and' as const, 'or' as const), parts: fc.array(tie('node'), { minLength: 2, maxLength: 4 }) })
      .map(({ kind, parts }): QueryNode => ({ kind, parts, at: 0 })),
  ),
}));

/** A tree as the parser makes them: same-kind parts flattened into their parent. */
function flattened(tree: QueryNode): QueryNode {
  if (tree.kind === 'not') return { ...tree, part: flattened(tree.part) };
  if (tree.kind !== 'and' && tree.kind !== 'or') return tree;
  const parts = tree.parts.map(flattened).flatMap((part) => (part.kind === tree.kind ? part.parts : [part]));
  return { ...tree, parts };
}
const clauses = (tree: QueryNode): number =>
  tree.kind === 'and' || tree.kind === 'or'
    ? tree.parts.reduce((sum, part) => sum + clauses(part), 0)
    : tree.kind === 'not'
      ? clauses(tree.part)
      : 1;
/** At least the nesting the printed text has: each NOT and each AND or OR (which may be in parentheses) one level. */
const nesting = (tree: QueryNode): number =>
  tree.kind === 'and' || tree.kind === 'or' ? 1 + Math.max(...tree.parts.map(nesting)) : tree.kind === 'not' ? 1 + nesting(tree.part) : 0;
const looksForSomething = (tree: QueryNode) => (tree.kind === 'and' ? tree.parts : [tree]).some((part) => part.kind !== 'not');

const queryTree = node
  .map(flattened)
  .filter((tree) => clauses(tree) <= QUERY_LIMITS.clauses && nesting(tree) <= QUERY_LIMITS.depth && looksForSomething(tree))
  .filter((tree) => printQuery(tree).length <= QUERY_LIMITS.length);

describe('printQuery writes the text that parses back to the same tree', () => {
  it('for any tree the parser can make', () => {
    fc.assert(
      fc.property(queryTree, (tree) => {
        const parsed = parseQuery(printQuery(tree));
        expect(parsed.ok ? shapeOf(parsed.tree) : parsed.error).toEqual(shapeOf(tree));
      }),
      { numRuns: 500 },
    );
  });

  it('for any text that parses, its canonical text means the same', () => {
    const text = fc.string({
      unit: fc.constantFrom(...'ab c-"()|:>=5kEUR'.split(''), ' OR ', ' AND ', 'NOT ', 'title:', 'rate>=', 'remote:yes'),
      maxLength: 30,
    });
    fc.assert(
      fc.property(text, (query) => {
        const parsed = parseQuery(query);
        if (!parsed.ok) return;
        const again = parseQuery(printQuery(parsed.tree));
        expect(again.ok ? shapeOf(again.tree) : again.error).toEqual(shapeOf(parsed.tree));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseQuery answers any text with a tree or an error inside it', () => {
  it('never throws, and an error points within the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (query) => {
        const parsed = parseQuery(query);
        if (!parsed.ok) expect(parsed.error.at).toBeGreaterThanOrEqual(0);
        if (!parsed.ok) expect(parsed.error.at).toBeLessThanOrEqual(query.length);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('printQuery writes the fewest parentheses precedence needs', () => {
  it.each([
    ['a b OR c', 'a b OR c'],
    ['(a b) OR c', '(a b) OR c'],
    ['-(a OR b) c', '-(a OR b) c'],
    ['title:(React OR Vue)', 'title:react OR title:vue'],
    ['“Senior  Engineer” NOT php', '"senior engineer" -php'],
    ['a AND b', 'a b'],
    ['a | b', 'a OR b'],
    ['salary>=100000 rate>=$60 fixed>=1.5k EUR', 'salary>=100k rate>=60 USD fixed>=1500 EUR'],
    ['remote:TRUE x', 'remote:yes x'],
    ['NOT NOT a b', '--a b'],
  ])('%s → %s', (query, canonical) => {
    const parsed = parseQuery(query);
    expect(parsed.ok && printQuery(parsed.tree)).toBe(canonical);
  });
});

describe('describeClause names one clause as a reason would', () => {
  it.each([
    ['title:React', 'title:react'],
    ['"senior engineer"', '"senior engineer"'],
    ['rate>=60', 'rate>=60'],
    ['salary>=90k EUR', 'salary>=90k EUR'],
    ['remote:no x', 'remote:no'],
  ])('%s → %s', (query, described) => {
    const parsed = parseQuery(query);
    const first = parsed.ok && (parsed.tree.kind === 'and' ? parsed.tree.parts[0] : parsed.tree);
    expect(first && describeClause(first)).toBe(described);
  });
});
