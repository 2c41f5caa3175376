import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../lib/query/parse-query';
import { printQuery } from '../../lib/query/print-query';
import { queryOfKeywords } from '../../lib/query/keywords-as-query';
import { MAX_KEYWORD_LENGTH } from '../../lib/query/keyword-term';
import {
  isKeywordQuery,
  keywordQueryText,
  MAX_QUERY_TEXT_LENGTH,
  queryOf,
  queryTextOf,
  rememberQuery,
  resolveProfileQuery,
  simpleFormOf,
  storedQueryOf,
} from '../../lib/query/subscriber-query';

const tree = (text: string) => {
  const parsed = parseQuery(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.tree;
};

describe('a subscriber’s query, stored beside the keyword lists', () => {
  it('keyword lists are their query: absent (a document from before queries) or as their canonical text, built, never parsed', () => {
    const lists = { keywords: ['react', 'react native'], excludes: ['wordpress'] };
    expect(keywordQueryText(lists.keywords, lists.excludes)).toBe('react OR "react native" -wordpress');
    for (const profile of [lists, { ...lists, query: 'react OR "react native" -wordpress' }]) {
      expect(isKeywordQuery(profile)).toBe(true);
      expect(queryOf(profile)).toEqual(queryOfKeywords(lists.keywords, lists.excludes));
      expect(queryTextOf(profile)).toBe('react OR "react native" -wordpress');
    }
  });

  it('the longest lists make a text past a typed query’s 500 characters, still read as exactly the lists, and within what a form may post', () => {
    const keywords = Array.from({ length: 25 }, (_, i) => `k${i} ${'x'.repeat(MAX_KEYWORD_LENGTH - 4)}`.slice(0, MAX_KEYWORD_LENGTH));
    const excludes = Array.from({ length: 25 }, (_, i) => `e${i} ${'y'.repeat(MAX_KEYWORD_LENGTH - 4)}`.slice(0, MAX_KEYWORD_LENGTH));
    const text = keywordQueryText(keywords, excludes);
    expect(text.length).toBeGreaterThan(3_000);
    expect(text.length).toBeLessThanOrEqual(MAX_QUERY_TEXT_LENGTH);
    expect(parseQuery(text).ok).toBe(false);
    expect(queryOf({ keywords, excludes, query: text })).toEqual(queryOfKeywords(keywords, excludes));
  });

  it('a written query is parsed; one that no longer parses falls back to the lists saved beside it', () => {
    const written = { keywords: ['react', 'vue'], excludes: ['wordpress'], query: 'title:(react OR vue) -wordpress' };
    expect(isKeywordQuery(written)).toBe(false);
    expect(queryOf(written)).toEqual(tree('title:(react OR vue) -wordpress'));
    expect(queryOf({ ...written, query: 'react (vue' })).toEqual(queryOfKeywords(['react', 'vue'], ['wordpress']));
    expect(queryOf({ keywords: [], excludes: [], query: 'react (vue' })).toBeNull();
  });
});

describe('a written query is parsed once per profile', () => {
  it('queryOf finds the tree remembered for the profile, and parses again once its text changed', () => {
    const profile = { keywords: ['react'], excludes: [], query: 'title:react remote:yes' };
    const first = queryOf(profile);
    expect(queryOf(profile)).toBe(first);
    const decoded = { ...profile };
    const parsed = tree('title:react remote:yes');
    expect(queryOf({ ...decoded })).not.toBe(parsed);
    rememberQuery(decoded, parsed);
    expect(queryOf(decoded)).toBe(parsed);
    decoded.query = 'title:vue';
    expect(queryOf(decoded)).toEqual(tree('title:vue'));
  });
});

describe('simpleFormOf: what the keyword and exclude fields show of a query', () => {
  it.each<[string, string[], string[], boolean]>([
    ['react OR vue -php', ['react', 'vue'], ['php'], true],
    ['react | vue NOT php', ['react', 'vue'], ['php'], true],
    ['"react native"', ['react native'], [], true],
    ['title:(react OR vue) remote:yes -wordpress rate>=60', ['react', 'vue'], ['wordpress'], false],
    ['react vue', ['react', 'vue'], [], false],
    ['(react OR vue) -(php OR java)', ['react', 'vue'], [], false],
    ['company:acme remote:yes', [], [], false],
    ['rust -"not wanted" -title:intern', ['rust'], ['not wanted'], false],
    ['a -(NOT b)', ['a', 'b'], [], false],
  ])('%s', (text, keywords, excludes, exact) => {
    expect(simpleFormOf(tree(text))).toEqual({ keywords, excludes, exact });
  });

  it('a query of more alternatives than the keyword field holds is not exact, and shows the first 25', () => {
    const words = Array.from({ length: 27 }, (_, i) => `w${i}`);
    const form = simpleFormOf(tree(words.join(' OR ')));
    expect(form.exact).toBe(false);
    expect(form.keywords).toEqual(words.slice(0, 25));
  });

  it('every keyword subscription round-trips: its canonical text is exact, and gives back the same lists', () => {
    const term = fc.stringMatching(/^[a-z0-9][a-z0-9+#. -]{0,12}[a-z0-9]$/).filter((t) => !t.includes('  '));
    fc.assert(
      fc.property(fc.uniqueArray(term, { minLength: 1, maxLength: 25 }), fc.uniqueArray(term, { maxLength: 25 }), (keywords, excludes) => {
        const text = keywordQueryText(keywords, excludes);
        const stored = storedQueryOf({ keywords: [], excludes: [], query: text.length <= 500 ? text : '' });
        if (text.length <= 500 && parseQuery(text).ok) {
          expect(stored).toEqual({ ok: true, stored: { query: text, keywords, excludes } });
          expect(simpleFormOf(tree(text)).exact).toBe(true);
        }
        expect(printQuery(queryOf({ keywords, excludes, query: text })!)).toBe(text);
      }),
    );
  });
});

describe('storedQueryOf: what an input stores', () => {
  it('a written query is stored as typed (trimmed) with its lists read from it; the lists’ own query as their canonical text', () => {
    expect(storedQueryOf({ keywords: ['ignored'], excludes: [], query: '  title:react remote:yes  ' })).toEqual({
      ok: true,
      stored: { query: 'title:react remote:yes', keywords: ['react'], excludes: [] },
    });
    expect(storedQueryOf({ keywords: [], excludes: [], query: 'React | Vue -PHP' })).toEqual({
      ok: true,
      stored: { query: 'react OR vue -php', keywords: ['react', 'vue'], excludes: ['php'] },
    });
    expect(storedQueryOf({ keywords: ['go'], excludes: ['php'] })).toEqual({
      ok: true,
      stored: { query: 'go -php', keywords: ['go'], excludes: ['php'] },
    });
  });

  it('a query that does not parse, or nothing to look for, is refused with where and why', () => {
    expect(storedQueryOf({ keywords: [], excludes: [], query: 'react (vue OR angular' })).toEqual({
      ok: false,
      error: { at: 6, message: '`(` at 6 is never closed' },
    });
    expect(storedQueryOf({ keywords: [], excludes: [] })).toMatchObject({ ok: false, error: { message: 'enter at least one keyword' } });
  });
});

describe('resolveProfileQuery: which of the simple form and the written query wins', () => {
  const written = { keywords: ['react', 'vue'], excludes: ['wordpress'], query: 'title:(react OR vue) -wordpress' };
  const lists = { keywords: ['react'], excludes: [], query: 'react' };

  it('at a signup (nothing stored): a written query wins; a blank one leaves the lists as the query', () => {
    expect(resolveProfileQuery({ keywords: ['go'], excludes: [], query: 'rust OR go' })).toMatchObject({
      ok: true,
      stored: { query: 'rust OR go', keywords: ['rust', 'go'] },
    });
    expect(resolveProfileQuery({ keywords: ['go'], excludes: ['php'], query: '  ' })).toMatchObject({
      ok: true,
      stored: { query: 'go -php' },
    });
    expect(resolveProfileQuery({ keywords: [], excludes: [], query: '' })).toEqual({
      ok: false,
      field: 'keywords',
      message: 'enter at least one keyword',
    });
    expect(resolveProfileQuery({ keywords: ['go'], excludes: [], query: 'go OR' })).toEqual({
      ok: false,
      field: 'query',
      message: 'expected a term after OR at 3',
      at: 3,
    });
  });

  it('a page saved untouched keeps a written query: its lists are its words, and saving them must not flatten it', () => {
    expect(resolveProfileQuery({ ...written }, written)).toEqual({ ok: true, stored: written });
    // A page from before queries posts no query field: the stored one stands.
    expect(resolveProfileQuery({ keywords: written.keywords, excludes: written.excludes }, written)).toEqual({ ok: true, stored: written });
  });

  it('changed lists replace the query with theirs; a changed query wins over the lists, changed or not', () => {
    expect(resolveProfileQuery({ keywords: ['svelte'], excludes: [], query: written.query }, written)).toEqual({
      ok: true,
      stored: { query: 'svelte', keywords: ['svelte'], excludes: [] },
    });
    expect(resolveProfileQuery({ keywords: ['svelte'], excludes: [], query: 'title:svelte' }, written)).toMatchObject({
      ok: true,
      stored: { query: 'title:svelte', keywords: ['svelte'] },
    });
    expect(resolveProfileQuery({ keywords: ['react'], excludes: [], query: 'react remote:yes' }, lists)).toMatchObject({
      ok: true,
      stored: { query: 'react remote:yes' },
    });
  });

  it('a stored keyword subscription past the typed limits posted back unchanged is kept, not judged by them', () => {
    const keywords = Array.from({ length: 25 }, (_, i) => `keyword number ${i} with many words`);
    const stored = { keywords, excludes: [], query: keywordQueryText(keywords, []) };
    expect(stored.query.length).toBeGreaterThan(500);
    expect(resolveProfileQuery({ keywords, excludes: [], query: stored.query }, stored)).toEqual({ ok: true, stored });
  });
});
