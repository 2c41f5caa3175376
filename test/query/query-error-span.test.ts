import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../lib/query/parse-query';
import { queryErrorSpan } from '../../lib/query/query-error-span';

/** What the pages mark of a query that does not parse: the word or bracket its error names, never a stray letter. */
const markedIn = (text: string) => {
  const parsed = parseQuery(text);
  if (parsed.ok) throw new Error(`${text} parses`);
  return queryErrorSpan(text, parsed.error.at).marked;
};

describe('queryErrorSpan', () => {
  it.each([
    ['react (vue OR angular', '('],
    ['(react OR vue) remote)', ')'],
    ['react OR', 'OR'],
    ['OR react', 'OR'],
    ['react - php', '-'],
    ['react "vue', '"'],
    ['react vue”', '”'],
    ['foo:bar', 'foo:bar'],
    ['title:-intern', 'title:-intern'],
    ['react <b>', '<b>'],
    ['salary>100k', 'salary>100k'],
  ])('%s: marks %s', (text, marked) => {
    expect(markedIn(text)).toBe(marked);
  });

  it('puts the whole text back together around the mark', () => {
    expect(queryErrorSpan('react (vue OR angular', 6)).toEqual({ before: 'react ', marked: '(', after: 'vue OR angular' });
  });

  it('past the end, marks a space after the text', () => {
    expect(queryErrorSpan('react', 5)).toEqual({ before: 'react', marked: ' ', after: '' });
  });
});
