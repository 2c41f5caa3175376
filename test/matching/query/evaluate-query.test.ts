import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Budget, Posting } from '../../../lib/feeds/posting';
import { matchQuery, postingRemote, readQueryText } from '../../../lib/matching/query/evaluate-query';
import type { QueryNode } from '../../../lib/query/query-tree';
import { scoreByKeywords } from './keyword-matching-before-queries';
import type { PatternCache } from '../../../lib/matching/posting-text';
import { MINIMUM_PAY_KINDS, NO_MIN_PAY, type MinPay } from '../../../lib/pay/minimum-pay';
import { parsePayText } from '../../../lib/pay/parse-pay';
import { readCorpusPostings } from '../../../scripts/bench/corpus-postings';
import { and, not, or, pay, posting, remote, term } from '../../query/query-trees';

const matches = (tree: QueryNode, fields: Partial<Posting>, currency = 'USD') => {
  const p = posting(fields);
  return matchQuery(tree, p, readQueryText(p), { currency }).matches;
};
const budget = (text: string): Budget => {
  const read = parsePayText(text, { within: 'field' });
  if (!read) throw new Error(`not pay: ${text}`);
  return read;
};

describe('a query clause matches what it names, with the keyword rules of today', () => {
  it.each<[string, QueryNode, Partial<Posting>, boolean]>([
    ['a term in the title', term('rust'), { title: 'Senior Rust Engineer' }, true],
    ['a term in the skills', term('rust'), { skills: ['rust'] }, true],
    ['a term deep in the description', term('rust'), { description: `${'We ship. '.repeat(400)}You know Rust.` }, true],
    ['a term inside a longer word', term('java'), { title: 'JavaScript developer' }, false],
    ['c++ as a word', term('c++'), { description: 'Modern C++ and Python' }, true],
    ['c as a word is not c++', term('c'), { description: 'Modern C++' }, true],
    ['node.js', term('node.js'), { skills: ['node.js'] }, true],
    ['a phrase across white space', term('react native'), { description: 'React\nNative apps' }, true],
    ['marks are part of a word', term('हिन'), { description: 'हिन्दी बोलने वाले' }, false],
    ['a whole Devanagari word', term('हिन्दी'), { description: 'हिन्दी बोलने वाले' }, true],
    ['a whole-text term does not read the company', term('acme'), { company: 'Acme' }, false],
    ['title: reads the title', term('rust', 'title'), { title: 'Rust Engineer' }, true],
    ['title: does not read the description', term('rust', 'title'), { title: 'Engineer', description: 'Rust' }, false],
    ['company: reads the company', term('acme', 'company'), { company: 'ACME Corp' }, true],
    ['company: with no company stated', term('acme', 'company'), { title: 'Acme', company: null }, false],
    ['company: with the field absent', term('acme', 'company'), { title: 'Acme' }, false],
    ['location: reads the location', term('berlin', 'location'), { location: 'Berlin, Germany' }, true],
    ['location: with none stated', term('berlin', 'location'), { description: 'Berlin', location: null }, false],
    ['source: reads the source id', term('remoteok', 'source'), { source: 'remoteok' }, true],
    ['source: a word of the source id', term('upwork', 'source'), { source: 'upwork-design' }, true],
    ['source: another source', term('remotive', 'source'), { source: 'remoteok' }, false],
  ])('%s', (_, tree, fields, expected) => expect(matches(tree, fields)).toBe(expected));
});

describe('remote:yes and remote:no read what the source says, and an unknown matches neither', () => {
  it.each<[string, Partial<Posting>, boolean | null]>([
    ['the source says remote', { remote: true }, true],
    ['the source says not remote', { remote: false }, false],
    ['the source does not say', { remote: null }, null],
    ['the field absent', {}, null],
    ['the location says remote (as the email shows it)', { remote: null, location: 'Remote (EU)' }, true],
    // A real Ashby posting (corpus): remote false, yet its locations offer remote.
    ['a location offering remote beside an office', { remote: false, location: 'New York, NY (HQ); Remote (US)' }, true],
    ['a location word holding "remote" is not it', { remote: null, location: 'Remoteville' }, null],
  ])('%s', (_, fields, remoteness) => {
    expect(postingRemote(posting(fields))).toBe(remoteness);
    expect(matches(remote(true), fields)).toBe(remoteness === true);
    expect(matches(remote(false), fields)).toBe(remoteness === false);
  });
});

describe('pay decides as a minimum of that kind and currency does', () => {
  it.each<[string, QueryNode, string | null, string, boolean]>([
    ['a yearly range whose top reaches it', pay('yearly', 140_000), '$120,000 - $150,000 per year', 'USD', true],
    ['a yearly range under it', pay('yearly', 160_000), '$120,000 - $150,000 per year', 'USD', false],
    ['yearly in another currency is not compared', pay('yearly', 160_000), '€60–75k a year', 'USD', true],
    ['the clause names the currency', pay('yearly', 90_000, 'EUR'), '€60–75k a year', 'USD', false],
    ['the subscriber currency when the clause names none', pay('yearly', 90_000), '€60–75k a year', 'EUR', false],
    ['an hourly rate', pay('hourly', 55), '$45-60/hour', 'USD', true],
    ['an hourly rate under it', pay('hourly', 70), '$45-60/hour', 'USD', false],
    ['hourly pay is not compared with a salary clause', pay('yearly', 100_000), '$50/hr', 'USD', true],
    ['a fixed price', pay('fixed', 1_000), 'Budget: $500', 'USD', false],
    ['daily pay has no clause of its own', pay('hourly', 100), '£400 per day', 'GBP', true],
    ['no pay stated', pay('yearly', 100_000), null, 'USD', true],
  ])('%s', (_, tree, payText, currency, expected) =>
    expect(matches(tree, { budget: payText ? budget(payText) : null }, currency)).toBe(expected),
  );

  it('names pay among the reasons only where it met the amount', () => {
    const check = (payText: string) => {
      const p = posting({ title: 'Rust', budget: budget(payText) });
      return matchQuery(and(term('rust'), pay('yearly', 100_000)), p, readQueryText(p), { currency: 'USD' }).matched.map((n) => n.kind);
    };
    expect(check('$120,000 - $150,000 per year')).toEqual(['term', 'pay']);
    expect(check('€60–75k a year')).toEqual(['term']);
  });
});

describe('AND, OR and NOT combine clauses, and only the clauses that held are reasons', () => {
  const p = posting({ title: 'Senior Rust Engineer', description: 'Kubernetes and Go', company: 'Acme', remote: true });
  const run = (tree: QueryNode) => matchQuery(tree, p, readQueryText(p), { currency: 'USD' });
  const texts = (tree: QueryNode) => run(tree).matched.map((n) => (n.kind === 'term' ? n.text : n.kind));

  it.each<[string, QueryNode, boolean, string[]]>([
    ['AND of two held', and(term('rust'), term('go')), true, ['rust', 'go']],
    ['AND with one missing', and(term('rust'), term('python')), false, []],
    ['OR lists only the alternatives that held', or(term('python'), term('rust'), term('go')), true, ['rust', 'go']],
    ['NOT of a missing term', and(term('rust'), not(term('php'))), true, ['rust']],
    ['NOT of a present term', and(term('rust'), not(term('go'))), false, []],
    ['NOT alone', not(term('php')), true, []],
    ['a NOT clause is never a reason', and(term('rust'), not(and(term('go'), term('php')))), true, ['rust']],
    ['double NOT', not(not(term('rust'))), true, []],
    [
      'nested with fields',
      and(or(term('rust', 'title'), term('java', 'title')), not(term('globex', 'company')), remote(true)),
      true,
      ['rust', 'remote'],
    ],
    ['an AND inside an OR that failed names nothing of it', or(and(term('rust'), term('php')), term('go')), true, ['go']],
    ['an empty AND holds', and(), true, []],
    ['an empty OR does not', or(), false, []],
  ])('%s', (_, tree, expected, reasons) => {
    expect(run(tree).matches).toBe(expected);
    expect(texts(tree)).toEqual(reasons);
  });
});

/** Today's profile as one query: any keyword, none of the excludes, and each pay minimum as a clause. */
function queryOf(keywords: string[], excludes: string[], minPay: MinPay): QueryNode {
  const pays = MINIMUM_PAY_KINDS.flatMap((kind) => (minPay[kind] ? [pay(kind, minPay[kind].amount, minPay[kind].currency)] : []));
  return and(or(...keywords.map((k) => term(k))), ...excludes.map((e) => not(term(e))), ...pays);
}

/** The query decides as scorePosting does, and names the keywords (and met pay) its reasons name. */
function expectSameAsToday(keywords: string[], excludes: string[], minPay: MinPay, p: Posting, patterns: PatternCache): boolean {
  const today = scoreByKeywords({ keywords, excludes, minPay }, p);
  const query = matchQuery(queryOf(keywords, excludes, minPay), p, readQueryText(p, patterns), { currency: 'USD' });
  expect(query.matches, `${p.id}: ${keywords.join(',')} -${excludes.join(',')}`).toBe(today.matched);
  if (!today.matched) return false;
  const named = query.matched.flatMap((n) => (n.kind === 'term' ? [n.text] : []));
  expect(named).toEqual(keywords.filter((k) => today.reasons.some((r) => r.startsWith(`“${k}”`))));
  expect(query.matched.some((n) => n.kind === 'pay')).toBe(today.reasons.some((r) => r.includes(' meets ')));
  return true;
}

const KEYWORDS = ['python', 'rust', 'go', 'c++', 'node.js', 'react native', 'react', 'java', 'senior', 'remote', 'aws', 'kubernetes'];

describe('a profile of keywords, excludes and minimums as a query matches what it matches today', () => {
  it('over the real corpus postings', async () => {
    const postings = (await readCorpusPostings()).flatMap((file) => file.postings);
    const patterns: PatternCache = new Map();
    const profiles: [string[], string[], MinPay][] = [
      [['python', 'rust'], ['senior'], NO_MIN_PAY],
      [['react', 'node.js'], ['java', 'php'], { ...NO_MIN_PAY, yearly: { amount: 150_000, currency: 'USD' } }],
      [['go', 'kubernetes', 'aws'], [], { ...NO_MIN_PAY, hourly: { amount: 60, currency: 'USD' } }],
      [['c++', 'react native'], ['remote'], { ...NO_MIN_PAY, yearly: { amount: 90_000, currency: 'EUR' } }],
    ];
    let matched = 0;
    for (const p of postings) for (const [k, e, m] of profiles) if (expectSameAsToday(k, e, m, p, patterns)) matched++;
    // Not a vacuous agreement: a good share of the pairs match.
    expect(matched).toBeGreaterThan(200);
  });

  it('over generated profiles and postings', () => {
    const words = [
      'Python',
      'rust',
      'Go',
      'C++',
      'c',
      'Node.js',
      'node',
      'React Native',
      'react',
      'JavaScript',
      'java',
      'senior',
      'Remote',
      'AWS',
      'and',
      '—',
    ];
    const text = fc.array(fc.constantFrom(...words), { maxLength: 8 }).map((ws) => ws.join(' '));
    const minimum = (kind: 'yearly' | 'hourly') =>
      fc.option(
        fc.record({
          amount: fc.constantFrom(...(kind === 'yearly' ? [80_000, 130_000] : [40, 70])),
          currency: fc.constantFrom('USD', 'EUR'),
        }),
        { nil: null },
      );
    let matched = 0;
    const budgets = ['$120,000 - $150,000 per year', '€60–75k a year', '$45-60/hour', '$50/hr', 'Budget: $500'].map(budget);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...KEYWORDS), { maxLength: 4 }),
        fc.uniqueArray(fc.constantFrom(...KEYWORDS), { maxLength: 2 }),
        minimum('yearly'),
        minimum('hourly'),
        fc.record({ title: text, description: text, skills: fc.array(fc.constantFrom('python', 'go', 'c++', 'aws'), { maxLength: 2 }) }),
        fc.option(fc.constantFrom(...budgets), { nil: null }),
        (keywords, excludes, yearly, hourly, fields, paid) => {
          if (expectSameAsToday(keywords, excludes, { ...NO_MIN_PAY, yearly, hourly }, posting({ ...fields, budget: paid }), new Map()))
            matched++;
        },
      ),
      { numRuns: 300, seed: 20261206 },
    );
    expect(matched).toBeGreaterThan(30);
  });
});
