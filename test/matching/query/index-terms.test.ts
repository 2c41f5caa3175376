import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildKeywordLookup } from '../../../lib/matching/keyword-lookup';
import { matchQuery, readQueryText } from '../../../lib/matching/query/evaluate-query';
import { indexTermsOf, type QueryIndex } from '../../../lib/matching/query/index-terms';
import type { QueryNode } from '../../../lib/query/query-tree';
import { NO_MIN_PAY } from '../../../lib/pay/minimum-pay';
import { printQuery } from '../../../lib/query/print-query';
import { rememberQuery } from '../../../lib/query/subscriber-query';
import { postingArbitrary, treeArbitrary } from '../../query/query-arbitraries';
import { and, not, or, pay, remote, term } from '../../query/query-trees';

describe('a query is indexed under one required term, else the alternatives of one OR, else scanned', () => {
  it.each<[string, QueryNode, QueryIndex]>([
    ['one term', term('rust'), { kind: 'terms', terms: ['rust'] }],
    [
      'the rarest-looking of the required terms',
      and(term('go'), term('kubernetes'), term('aws')),
      { kind: 'terms', terms: ['kubernetes'] },
    ],
    ['a phrase by its first word', and(term('go'), term('react native')), { kind: 'terms', terms: ['react native'] }],
    ['a required term rather than an OR', and(or(term('kubernetes'), term('terraform')), term('go')), { kind: 'terms', terms: ['go'] }],
    ['each alternative of an OR', or(term('react'), term('vue')), { kind: 'terms', terms: ['react', 'vue'] }],
    [
      'the OR with fewest alternatives',
      and(or(term('a1'), term('b1'), term('c1')), or(term('react'), term('vue'))),
      { kind: 'terms', terms: ['react', 'vue'] },
    ],
    ['alternatives sharing a first token once', or(term('react'), term('react native')), { kind: 'terms', terms: ['react'] }],
    [
      'a title: term (the title is in the text)',
      and(term('senior engineer', 'title'), remote(true)),
      { kind: 'terms', terms: ['senior engineer'] },
    ],
    [
      'a required term beside a field, pay and NOT: the rarer-looking word',
      and(term('acme', 'company'), pay('yearly', 1), not(term('php')), term('kubernetes')),
      { kind: 'terms', terms: ['kubernetes'] },
    ],
    ['NOT of an AND of NOTs is an OR', not(and(not(term('react')), not(term('vue')))), { kind: 'terms', terms: ['react', 'vue'] }],
    ['double NOT', not(not(term('rust'))), { kind: 'terms', terms: ['rust'] }],
    ['an OR with a field alternative', or(term('rust'), term('acme', 'company')), { kind: 'terms', terms: ['rust', 'company:acme'] }],
    [
      'only fields: the rarest-looking, in its field',
      and(term('acme', 'company'), term('berlin', 'location'), term('remoteok', 'source')),
      { kind: 'terms', terms: ['source:remoteok'] },
    ],
    [
      'a field term and a text term filed by the same word are two alternatives',
      or(term('acme'), term('acme', 'company')),
      { kind: 'terms', terms: ['acme', 'company:acme'] },
    ],
    ['only remote and pay', and(remote(true), pay('yearly', 100_000)), { kind: 'scan' }],
    ['only a NOT', not(term('php')), { kind: 'scan' }],
    ['NOT of an OR', not(or(term('php'), term('java'))), { kind: 'scan' }],
    ['a term with no word', term('++'), { kind: 'scan' }],
    ['an empty AND', and(), { kind: 'scan' }],
  ])('%s', (_, tree, expected) => expect(indexTermsOf(tree)).toEqual(expected));
});

describe('every posting a query matches is found through its index terms', () => {
  it('for generated queries and postings, with the keyword lookup itself', () => {
    let indexed = 0;
    let found = 0;
    fc.assert(
      fc.property(treeArbitrary, fc.array(postingArbitrary, { minLength: 4, maxLength: 10 }), (tree, postings) => {
        const index = indexTermsOf(tree);
        if (index.kind === 'scan') return;
        indexed++;
        // The lookup as the run builds it, for a subscriber who wrote this query (its tree kept, as a decoded entry's is).
        const subscriber = { keywords: [], excludes: [], minPay: NO_MIN_PAY, query: printQuery(tree) };
        rememberQuery(subscriber, tree);
        const lookup = buildKeywordLookup([subscriber]);
        expect(lookup.scans).toBe(0);
        for (const p of postings) {
          if (!matchQuery(tree, p, readQueryText(p), { currency: 'USD' }).matches) continue;
          expect(lookup.candidatesFor(p), JSON.stringify(index.terms)).toHaveLength(1);
          found++;
        }
      }),
      { numRuns: 300, seed: 1262026 },
    );
    // Many generated queries have an index, and many of those match: the property is not vacuous.
    expect(indexed).toBeGreaterThan(60);
    expect(found).toBeGreaterThan(80);
  });
});
