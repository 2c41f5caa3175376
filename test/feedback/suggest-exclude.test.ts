import { describe, expect, it } from 'vitest';
import { excludedBy, type MatchedText } from '../../lib/matching/score-posting';
import { suggestExclude } from '../../lib/feedback/suggest-exclude';

const posting = (title: string, description = '', skills: string[] = []): MatchedText => ({ title, description, skills });

const wordpressGigs = [
  posting('WordPress theme for a bakery', 'Customise a theme, React welcome.'),
  posting('Fix my WordPress plugin', 'PHP and React.'),
  posting('Shopify store setup', 'Liquid templates.', ['Shopify']),
];
const recent = [
  ...wordpressGigs,
  posting('React dashboard', 'TypeScript, charts.'),
  posting('React Native app', 'Expo.'),
  posting('Landing page', 'React and Tailwind.', ['WordPress']),
  posting('Next.js shop', 'React, Stripe.'),
];
const subscriber = { keywords: ['react'], excludes: [] as string[] };

describe('suggestExclude', () => {
  it('proposes a word the "not a fit" postings share, with how many recent matches it would have removed', () => {
    expect(suggestExclude({ ...subscriber, notAFit: wordpressGigs, recent })).toEqual({
      term: 'wordpress',
      removed: 3,
      of: 7,
      notAFitRemoved: 2,
      notAFitCount: 3,
    });
  });

  it('counts removals by the exclude rule matching uses: the skills count, a word inside another word does not', () => {
    const suggestion = suggestExclude({
      ...subscriber,
      notAFit: wordpressGigs,
      recent: [...recent, posting('WordPressy blog', 'React.')],
    })!;
    // "WordPressy" is another word; the landing page lists WordPress as a skill.
    expect(suggestion.removed).toBe(recent.filter((p) => excludedBy(['wordpress'], p) !== null).length);
    expect(suggestion.of).toBe(recent.length + 1);
  });

  it.each([
    ['a word only one "not a fit" posting has', [wordpressGigs[0], wordpressGigs[2]], subscriber, null],
    ['a single "not a fit" posting', [wordpressGigs[0]], subscriber, null],
    ['a keyword', [posting('React WordPress'), posting('React WordPress')], { keywords: ['wordpress', 'react'], excludes: [] }, null],
    ['a word of a keyword phrase', wordpressGigs, { keywords: ['react', 'wordpress plugin'], excludes: [] }, null],
    ['an exclude already there', wordpressGigs, { keywords: ['react'], excludes: ['wordpress'] }, null],
    ['a stopword, however common', [posting('Remote work needed'), posting('Remote work needed')], subscriber, null],
    ['a number', [posting('Job 2026'), posting('Gig 2026')], subscriber, null],
  ])('proposes nothing for %s', (_what, notAFit, who, expected) => {
    expect(suggestExclude({ ...who, notAFit, recent })).toEqual(expected);
  });

  it('skips a term that would remove every recent match, and one that would remove none', () => {
    const onlyWordpress = recent.filter((p) => excludedBy(['wordpress'], p) !== null);
    expect(suggestExclude({ ...subscriber, notAFit: wordpressGigs, recent: onlyWordpress })).toBeNull();
    const noneOfThem = recent.filter((p) => excludedBy(['wordpress'], p) === null);
    expect(suggestExclude({ ...subscriber, notAFit: wordpressGigs, recent: noneOfThem })).toBeNull();
    expect(suggestExclude({ ...subscriber, notAFit: wordpressGigs, recent: [] })).toBeNull();
  });

  it('skips when the subscriber has no room for another exclude', () => {
    const excludes = Array.from({ length: 25 }, (_, i) => `term${i}`);
    expect(suggestExclude({ keywords: ['react'], excludes, notAFit: wordpressGigs, recent })).toBeNull();
  });

  it('prefers the term covering most "not a fit" postings, then the one removing fewer matches, then the longer, then the alphabet', () => {
    const notAFit = [posting('Drupal and PHP site'), posting('Drupal and PHP fix'), posting('PHP forms')];
    const more = [...recent, ...notAFit, posting('PHP backend, React front', '')];
    // php: 3 of the marked ones; drupal: 2.
    expect(suggestExclude({ ...subscriber, notAFit, recent: more })?.term).toBe('php');
    // Both in the same two marked postings: drupal removes fewer of the recent matches than php.
    const two = notAFit.slice(0, 2);
    expect(suggestExclude({ ...subscriber, notAFit: two, recent: more })?.term).toBe('drupal');
    // A tie on everything: alphabetical, so the page never flickers between two.
    const tie = [posting('Alpha delta'), posting('Alpha delta')];
    expect(suggestExclude({ ...subscriber, notAFit: tie, recent: [...tie, posting('React')] })?.term).toBe('alpha');
  });

  it('proposes a skill as a whole, in the spelling an exclude is stored in', () => {
    const notAFit = [posting('Store', '', ['Google Ads']), posting('Shop', '', ['Google Ads'])];
    const suggestion = suggestExclude({ ...subscriber, notAFit, recent: [...notAFit, posting('React app')] });
    // "google", "ads" and "google ads" remove the same postings: the narrowest wins.
    expect(suggestion?.term).toBe('google ads');
    expect(
      suggestExclude({ keywords: ['react'], excludes: ['ads', 'google'], notAFit, recent: [...notAFit, posting('React app')] }),
    ).toBeNull();
  });
});
