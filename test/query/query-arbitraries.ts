import fc from 'fast-check';
import type { Budget, Posting } from '../../lib/feeds/posting';
import { QUERY_FIELDS, type QueryNode } from '../../lib/query/query-tree';
import { MINIMUM_PAY_KINDS } from '../../lib/pay/minimum-pay';
import { posting } from './query-trees';

/**
 * Terms as normalised queries hold them: single words, phrases, the punctuation real skills use, and
 * words of other scripts, some inside others ("java" in "javascript", "हिन" in "हिन्दी") so word
 * boundaries are tested.
 */
export const TERMS = [
  'rust',
  'go',
  'c',
  'c++',
  'node.js',
  'node',
  'java',
  'javascript',
  'react',
  'react native',
  'senior engineer',
  'remote',
  'acme',
  'berlin',
  'münchen',
  'straße',
  'हिन्दी',
  'हिन',
  'データ',
  'ui/ux',
];

/** What postings are written of: the terms in other cases and with other spacing, and filler. */
const WORDS = [
  ...TERMS,
  'Rust',
  'GO',
  'C++',
  'Node.JS',
  'JavaScript',
  'React  Native',
  'react\nnative',
  'Senior Engineer',
  'REMOTE',
  'ACME',
  'MÜNCHEN',
  'STRAẞE',
  'データ分析',
  'UI/UX',
  'and',
  'with',
  '—',
  '(',
  ')',
  ',',
];

const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 7 }).map((words) => words.join(' '));
const BUDGETS: Budget[] = [
  { amount: 120_000, maxAmount: 150_000, currency: 'USD', kind: 'yearly' },
  { amount: 60_000, maxAmount: 75_000, currency: 'EUR', kind: 'yearly' },
  { amount: 45, maxAmount: 60, currency: 'USD', kind: 'hourly' },
  { amount: 500, currency: 'USD', kind: 'fixed' },
  { amount: 400, currency: 'GBP', kind: 'daily' },
  { amount: 90_000, currency: null, kind: 'yearly' },
];

export const postingArbitrary: fc.Arbitrary<Posting> = fc
  .record({
    title: text,
    description: text,
    skills: fc.array(fc.constantFrom('rust', 'go', 'c++', 'node.js', 'react native', 'データ'), { maxLength: 3 }),
    company: fc.constantFrom(null, undefined, 'Acme', 'ACME GmbH', 'Globex', 'Straße & Co'),
    location: fc.constantFrom(
      null,
      undefined,
      'Berlin, Germany',
      'Remote (EU)',
      'München',
      'New York, NY (HQ); Remote (US)',
      'Remoteville',
    ),
    remote: fc.constantFrom(true, false, null, undefined),
    source: fc.constantFrom('remoteok', 'remotive', 'upwork-design', 'acme-careers'),
    budget: fc.option(fc.constantFrom(...BUDGETS), { nil: null }),
  })
  .map((fields) => posting(fields));

const leaf: fc.Arbitrary<QueryNode> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({ text: fc.constantFrom(...TERMS), field: fc.constantFrom(null, null, null, ...QUERY_FIELDS) })
      .map(({ text, field }) => ({ kind: 'term' as const, field, text, phrase: text.includes(' '), at: 0 })),
  },
  { weight: 1, arbitrary: fc.boolean().map((remote) => ({ kind: 'remote' as const, remote, at: 0 })) },
  {
    weight: 1,
    arbitrary: fc
      .record({
        pay: fc.constantFrom(...MINIMUM_PAY_KINDS),
        amount: fc.constantFrom(50, 100, 1_000, 80_000, 140_000),
        currency: fc.constantFrom(null, 'USD', 'EUR'),
      })
      .map((fields) => ({ kind: 'pay' as const, ...fields, at: 0 })),
  },
);

/** Trees up to 4 levels deep, of every node kind. */
export const treeArbitrary: fc.Arbitrary<QueryNode> = fc.letrec<{ node: QueryNode }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'query' },
    leaf,
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((parts) => ({ kind: 'and' as const, parts, at: 0 })),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((parts) => ({ kind: 'or' as const, parts, at: 0 })),
    tie('node').map((part) => ({ kind: 'not' as const, part, at: 0 })),
  ),
})).node;
