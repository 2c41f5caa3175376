import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keywordQueryOf, termsOf } from '../../lib/client/keyword-query';
import { keywordQueryText } from '../../lib/query/subscriber-query';
import { splitKeywordList } from '../../lib/subscribers/preference-fields';

/**
 * The form script rewrites the "Advanced" query as the keywords and excludes are typed, with its own
 * copy of the canonical rule (the server's printer is not in the browser's bundle): the two must
 * write the same text for the same fields, or a page would post a query the server reads as
 * changed.
 */
const serverText = (keywords: string, excludes: string) => {
  const list = splitKeywordList(keywords);
  return list.length === 0 ? '' : keywordQueryText(list, splitKeywordList(excludes));
};

// What people type into the two fields: words, phrases, separators, odd white space, capitals, a
// decomposed accent (e + U+0301), leading dashes, the punctuation keywords allow.
const pieces = [
  'react',
  'Vue',
  'node.js',
  'c++',
  'c#',
  'react native',
  'senior  engineer',
  '-net',
  'e-commerce',
  'ui/ux',
  'caf\u0065\u0301',
  'r&d',
  "o'reilly",
  'ß',
  '日本語',
];
const separators = [', ', ',', '\n', '\r\n', ' , ', ',,', '\t', '  '];
const field = fc
  .array(fc.tuple(fc.constantFrom(...pieces), fc.constantFrom(...separators)), { maxLength: 12 })
  .map((parts) => parts.map(([piece, separator]) => `${piece}${separator}`).join(''));

describe('the form script’s query of the lists (lib/client/keyword-query.ts)', () => {
  it('is the server’s canonical text of the same two fields, over generated fields', () => {
    fc.assert(
      fc.property(field, field, (keywords, excludes) => {
        expect(keywordQueryOf(keywords, excludes)).toBe(serverText(keywords, excludes));
      }),
      { numRuns: 2_000 },
    );
  });

  it('splits, normalises and de-duplicates as the schema does', () => {
    fc.assert(
      fc.property(field, (text) => {
        expect(termsOf(text)).toEqual(splitKeywordList(text));
      }),
      { numRuns: 1_000 },
    );
  });

  it('quotes phrases and leading dashes, joins keywords with OR and leaves each exclude out', () => {
    expect(keywordQueryOf('React, react native\n-net', 'WordPress, front end')).toBe(
      'react OR "react native" OR "-net" -wordpress -"front end"',
    );
    expect(keywordQueryOf('rust', '')).toBe('rust');
  });

  it('says nothing without a keyword, whatever the excludes', () => {
    expect(keywordQueryOf(' , \n', 'php')).toBe('');
  });
});
