import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../lib/query/parse-query';
import { QUERY_LIMITS } from '../../lib/query/query-tree';
import { and, not, or, pay, phrase, remote, shapeOf, term, type Shape } from './query-builders';

const ONLY_EXCLUSIONS = 'a query cannot be only exclusions: add something to look for';
const FIELDS = 'use title, company, location or source';
const CHARACTERS = "each term may use only letters, digits, spaces and + # . - / & '";

/** Queries that parse, with the tree each means (positions aside). */
const VALID: [query: string, tree: Shape][] = [
  // terms and keyword characters
  ['react', term('react')],
  ['React', term('react')],
  ['c++', term('c++')],
  ['c#', term('c#')],
  ['node.js', term('node.js')],
  ['.net', term('.net')],
  ['ci/cd', term('ci/cd')],
  ['r&d', term('r&d')],
  ["o'reilly", term("o'reilly")],
  ['e-commerce', term('e-commerce')],
  ['front-end developer', and(term('front-end'), term('developer'))],
  ['日本語', term('日本語')],
  ['हिन्दी', term('हिन्दी')],
  ['Ünïcödé', term('ünïcödé')],
  ['cafe\u0301', term('café')],
  // lower-case operators are words
  ['rock or roll', and(term('rock'), term('or'), term('roll'))],
  ['black and white', and(term('black'), term('and'), term('white'))],
  ['not here', and(term('not'), term('here'))],
  ['Or', term('or')],
  // phrases
  ['"senior engineer"', phrase('senior engineer')],
  ['"Senior   Engineer "', phrase('senior engineer')],
  ['“react native”', phrase('react native')],
  ['“react native"', phrase('react native')],
  ['"react"', phrase('react')],
  ['"OR"', phrase('or')],
  ['"-net"', phrase('-net')],
  // operators
  ['react vue', and(term('react'), term('vue'))],
  ['react AND vue', and(term('react'), term('vue'))],
  ['react OR vue', or(term('react'), term('vue'))],
  ['react | vue', or(term('react'), term('vue'))],
  ['react|vue|angular', or(term('react'), term('vue'), term('angular'))],
  ['react -wordpress', and(term('react'), not(term('wordpress')))],
  ['react NOT wordpress', and(term('react'), not(term('wordpress')))],
  ['react -"word press"', and(term('react'), not(phrase('word press')))],
  ['react -(php OR wordpress)', and(term('react'), not(or(term('php'), term('wordpress'))))],
  // precedence: NOT, then OR, then AND (Google's)
  ['a b OR c', and(term('a'), or(term('b'), term('c')))],
  ['a OR b c', and(or(term('a'), term('b')), term('c'))],
  ['a OR b AND c OR d', and(or(term('a'), term('b')), or(term('c'), term('d')))],
  ['(a b) OR c', or(and(term('a'), term('b')), term('c'))],
  ['-a OR b', or(not(term('a')), term('b'))],
  ['NOT a b', and(not(term('a')), term('b'))],
  // flattening; double NOT kept
  ['(a b) c', and(term('a'), term('b'), term('c'))],
  ['a (b (c d))', and(term('a'), term('b'), term('c'), term('d'))],
  ['(a OR b) OR (c | d)', or(term('a'), term('b'), term('c'), term('d'))],
  ['((react))', term('react')],
  ['--a b', and(not(not(term('a'))), term('b'))],
  ['NOT -a b', and(not(not(term('a'))), term('b'))],
  // fields
  ['title:react', term('react', 'title')],
  ['Title:React', term('react', 'title')],
  ['company:acme location:berlin source:remoteok', and(term('acme', 'company'), term('berlin', 'location'), term('remoteok', 'source'))],
  ['title:"senior engineer"', phrase('senior engineer', 'title')],
  ['title:(react OR vue)', or(term('react', 'title'), term('vue', 'title'))],
  ['title:(react -"react native")', and(term('react', 'title'), not(phrase('react native', 'title')))],
  ['-title:intern react', and(not(term('intern', 'title')), term('react'))],
  ['title:c++', term('c++', 'title')],
  // remote
  ['remote:yes react', and(remote(true), term('react'))],
  ['react remote:no', and(term('react'), remote(false))],
  ['react remote:TRUE', and(term('react'), remote(true))],
  ['react remote:false', and(term('react'), remote(false))],
  ['remote react', and(term('remote'), term('react'))],
  // pay
  ['salary>=100k', pay('yearly', 100_000)],
  ['salary>=100K', pay('yearly', 100_000)],
  ['rate>=60', pay('hourly', 60)],
  ['rate>=62.5', pay('hourly', 62.5)],
  ['fixed>=500', pay('fixed', 500)],
  ['salary>=90k EUR', pay('yearly', 90_000, 'EUR')],
  ['salary>=90kEUR', pay('yearly', 90_000, 'EUR')],
  ['rate>=$60', pay('hourly', 60, 'USD')],
  ['rate>=€45', pay('hourly', 45, 'EUR')],
  ['salary>=£50k', pay('yearly', 50_000, 'GBP')],
  ['Salary>=1.5k', pay('yearly', 1500)],
  ['rate>=60 usd', and(pay('hourly', 60), term('usd'))],
  ['rate>=60 EUR EUR', and(pay('hourly', 60, 'EUR'), term('eur'))],
  ['rate>=60 CAD developer', and(pay('hourly', 60, 'CAD'), term('developer'))],
  ['salary>=1,500 fixed>=$1.5k', and(pay('yearly', 1500), pay('fixed', 1500, 'USD'))],
  ['salary>=EUR90k', pay('yearly', 90_000, 'EUR')],
  ['-rate>=60 react', and(not(pay('hourly', 60)), term('react'))],
  ['salary', term('salary')],
  ['fixed>=0 react', and(pay('fixed', 0), term('react'))],
  // the example: React or Vue, remote, not WordPress, at least $60/hour, in the title
  [
    'title:(react OR vue) remote:yes -wordpress rate>=60',
    and(or(term('react', 'title'), term('vue', 'title')), remote(true), not(term('wordpress')), pay('hourly', 60)),
  ],
];

/** Queries refused, with the exact error. */
const INVALID: [query: string, at: number, message: string][] = [
  ['', 0, 'the query is empty: type a word to look for'],
  ['   ', 0, 'the query is empty: type a word to look for'],
  ['-wordpress', 0, ONLY_EXCLUSIONS],
  ['-wordpress NOT php', 0, ONLY_EXCLUSIONS],
  ['-(a b)', 0, ONLY_EXCLUSIONS],
  ['react (vue OR angular', 6, '`(` at 6 is never closed'],
  ['(react OR vue) remote)', 21, '`)` at 21 has no `(`'],
  [')', 0, '`)` at 0 has no `(`'],
  ['react ()', 6, 'expected a term after `(` at 6'],
  ['react OR', 6, 'expected a term after OR at 6'],
  ['react OR OR vue', 6, 'expected a term after OR at 6'],
  ['react | ) ', 6, 'expected a term after OR at 6'],
  ['OR react', 0, 'expected a term before OR at 0'],
  ['AND react', 0, 'expected a term before AND at 0'],
  ['react AND', 6, 'expected a term after AND at 6'],
  ['react NOT', 6, 'expected a term after NOT at 6'],
  ['react - php', 6, '`-` at 6 must be followed directly by what to leave out, like -wordpress'],
  ['react -', 6, 'expected a term after `-` at 6'],
  ['react "vue', 6, '`"` at 6 is never closed'],
  ['react “vue', 6, '`“` at 6 is never closed'],
  ['react vue”', 9, '`”` at 9 has no `“`'],
  ['react ""', 6, 'the phrase at 6 is empty: put words between the quotes'],
  ['react "  "', 6, 'the phrase at 6 is empty: put words between the quotes'],
  ['foo:bar', 0, `unknown field \`foo\` at 0: ${FIELDS}`],
  ['react FOO:bar', 6, `unknown field \`foo\` at 6: ${FIELDS}`],
  ['c:', 0, `unknown field \`c\` at 0: ${FIELDS}`],
  ['salary:100k', 0, `unknown field \`salary\` at 0: ${FIELDS} (pay is written salary>=100k)`],
  ['title: react', 0, 'expected a word, a "phrase" or ( right after `title:` at 0'],
  ['title:', 0, 'expected a word, a "phrase" or ( right after `title:` at 0'],
  ['title:(react company:acme)', 13, '`company:` at 13 cannot be inside title:( ) at 0: only words and phrases can'],
  ['title:(react remote:yes)', 13, '`remote:` at 13 cannot be inside title:( ) at 0: only words and phrases can'],
  ['title:(react rate>=60)', 13, '`rate>=60` at 13 cannot be inside title:( ) at 0: only words and phrases can'],
  ['react title:-intern', 6, '`title:-intern` at 6: to leave out, write -title:intern'],
  ['remote:maybe', 0, '`remote:` at 0 takes yes or no, like remote:yes'],
  ['remote:', 0, '`remote:` at 0 takes yes or no, like remote:yes'],
  ['salary>100k', 0, '`salary>` at 0: only at least is supported, use >='],
  ['rate<=60', 0, '`rate<=` at 0: only at least is supported, use >='],
  ['rate=60', 0, '`rate=` at 0: only at least is supported, use >='],
  ['react salary >=100k', 13, '`>=100k` at 13: write pay without spaces, like salary>=100k or rate>=60'],
  ['react salary >= 100k', 13, '`>=` at 13: write pay without spaces, like salary>=100k or rate>=60'],
  ['rate>=', 0, 'expected an amount after `rate>=` at 0, like rate>=60 or rate>=100k EUR'],
  ['rate>=lots', 0, 'expected an amount after `rate>=` at 0, like rate>=60 or rate>=100k EUR'],
  ['rate>=-5', 0, 'the amount at 0 must be between 0 and 10,000,000'],
  ['salary>=20000k', 0, 'the amount at 0 must be between 0 and 10,000,000'],
  ['rate>=€60 EUR', 10, '`EUR` at 10: the amount before it already names its currency'],
  ['react <b>', 6, `\`<b>\` at 6: ${CHARACTERS} ("<" is not allowed)`],
  ['react 10:30', 6, `\`10:30\` at 6: ${CHARACTERS} (":" is not allowed)`],
  ['react ++', 6, '`++` at 6: each term needs a letter or digit: "++" can never match a posting\'s words'],
  ['react "a <b>"', 6, `\`a <b>\` at 6: ${CHARACTERS} ("<" is not allowed)`],
  [`react ${'x'.repeat(61)}`, 6, `\`${'x'.repeat(61)}\` at 6: each term must be at most 60 characters`],
];

describe('parseQuery reads each query as its tree', () => {
  it.each(VALID)('%s', (query, tree) => {
    const parsed = parseQuery(query);
    expect(parsed.ok ? shapeOf(parsed.tree) : parsed.error).toEqual(tree);
  });
});

describe('parseQuery refuses each malformed query with where and what was expected', () => {
  it.each(INVALID)('%s', (query, at, message) => {
    expect(parseQuery(query)).toEqual({ ok: false, error: { at, message } });
  });
});

describe('parseQuery keeps where each node starts', () => {
  it('points at each clause, its NOT and its field as typed', () => {
    const parsed = parseQuery('title:(react OR vue) remote:yes -wordpress rate>=60');
    expect(parsed).toMatchObject({
      ok: true,
      tree: {
        at: 7,
        parts: [
          { kind: 'or', at: 7, parts: [{ at: 7 }, { at: 16 }] },
          { kind: 'remote', at: 21 },
          { kind: 'not', at: 32, part: { at: 33 } },
          { kind: 'pay', at: 43 },
        ],
      },
    });
  });
});

describe('parseQuery refuses each bound of QUERY_LIMITS with its own error', () => {
  it('refuses a query longer than the length bound, and takes one exactly at it', () => {
    expect(parseQuery(`react${' '.repeat(QUERY_LIMITS.length - 5)}`).ok).toBe(true);
    expect(parseQuery(`react${' '.repeat(QUERY_LIMITS.length - 4)}`)).toEqual({
      ok: false,
      error: { at: QUERY_LIMITS.length, message: 'the query is 501 characters long: at most 500' },
    });
  });

  it('refuses the clause after the last one allowed', () => {
    const words = Array.from({ length: QUERY_LIMITS.clauses }, (_, index) => `w${index}`);
    expect(parseQuery(words.join(' ')).ok).toBe(true);
    const query = [...words, 'one-too-many'].join(' ');
    const at = query.indexOf('one-too-many');
    expect(parseQuery(query)).toEqual({
      ok: false,
      error: { at, message: `too many clauses at ${at}: a query may have at most 30 words, phrases, remote and pay clauses` },
    });
  });

  it("counts remote and pay clauses and each term in a field's parentheses as a clause", () => {
    const query = `title:(${Array.from({ length: 28 }, (_, index) => `w${index}`).join(' OR ')}) remote:yes rate>=60 salary>=100k`;
    const at = query.indexOf('salary');
    expect(parseQuery(query)).toMatchObject({ ok: false, error: { at, message: expect.stringContaining('too many clauses') } });
  });

  it('refuses nesting past the depth bound, counting parentheses and NOTs alike', () => {
    expect(parseQuery('a ((((((b))))))').ok).toBe(true);
    expect(parseQuery('a (((((((b)))))))')).toEqual({
      ok: false,
      error: { at: 8, message: 'nested too deeply at 8: at most 6 levels of parentheses and NOTs' },
    });
    expect(parseQuery('a (((-(-b)))) ').ok).toBe(true);
    expect(parseQuery('a ((-(-(-b))))')).toEqual({
      ok: false,
      error: { at: 8, message: 'nested too deeply at 8: at most 6 levels of parentheses and NOTs' },
    });
  });
});
