import { describe, expect, it } from 'vitest';
import { queryOfKeywords } from '../../lib/query/keywords-as-query';
import { parseQuery } from '../../lib/query/parse-query';
import { printQuery } from '../../lib/query/print-query';
import { and, not, or, phrase, shapeOf, term } from './query-builders';

/** Keyword lists as subscribers write them today (the keyword rule's own examples, and other scripts). */
const SUBSCRIPTIONS: [keywords: string[], excludes: string[]][] = [
  [['react'], []],
  [['c++', 'c#', '.net', 'node.js'], ['wordpress']],
  [
    ['React Native', 'flutter', 'ui/ux'],
    ['php', 'junior developer'],
  ],
  [['r&d', "o'reilly", 'front-end', 'e-commerce'], []],
  [['日本語', 'हिन्दी', 'Ünïcödé', 'العربية', 'разработчик'], ['стажёр']],
  [
    ['machine learning', 'or', 'and', 'not'],
    ['remote', 'title'],
  ],
  [['-net', 'ci/cd'], ['-'.concat('legacy')]],
  [
    ['Go', 'Rust', 'Kotlin', 'Swift', 'Scala', 'Elixir', 'Haskell', 'OCaml', 'F#', 'Clojure'],
    ['crypto', 'web3', 'nft', 'blockchain'],
  ],
];

describe('queryOfKeywords states a subscription as a query', () => {
  it('is any keyword, and none of the excludes', () => {
    expect(shapeOf(queryOfKeywords(['React Native', 'c++'], ['WordPress', 'php dev']))).toEqual(
      and(or(phrase('react native'), term('c++')), not(term('wordpress')), not(phrase('php dev'))),
    );
  });

  it('is the keyword itself when there is one, with no exclude', () => {
    expect(shapeOf(queryOfKeywords(['  Node.js '], []))).toEqual(term('node.js'));
  });

  it('refuses a subscription with no keyword rather than one that matches everything', () => {
    expect(() => queryOfKeywords([], ['php'])).toThrow('at least one keyword');
  });

  it.each(SUBSCRIPTIONS)('prints as text that parses back to the same tree: %j, excluding %j', (keywords, excludes) => {
    const tree = queryOfKeywords(keywords, excludes);
    const parsed = parseQuery(printQuery(tree));
    expect(parsed.ok ? shapeOf(parsed.tree) : parsed.error).toEqual(shapeOf(tree));
  });

  it('prints as people would write it', () => {
    expect(printQuery(queryOfKeywords(['c++', 'React Native', '-net'], ['wordpress']))).toBe('c++ OR "react native" OR "-net" -wordpress');
  });
});
