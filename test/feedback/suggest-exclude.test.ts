import { describe, expect, it } from 'vitest';
import { excludedBy } from '../../lib/matching/score-posting';
import {
  BOILERPLATE_SHARE,
  MAX_KEPT_REMOVED_SHARE,
  MIN_SOURCE_POSTINGS,
  suggestExclude,
  type NotAFitPosting,
  type RecentMatch,
} from '../../lib/feedback/suggest-exclude';

type Posting = RecentMatch & NotAFitPosting;
let next = 0;
/** One posting, usable as a recent match and as a "not a fit" snapshot of itself (the same id). */
const posting = (title: string, description = '', skills: string[] = [], source = 'sample'): Posting => {
  const id = `${source}_${next++}`;
  return { id, jobId: id, source, title, description, skills };
};

const wordpressGigs = [
  posting('WordPress theme for a bakery', 'Customise a theme, React welcome.'),
  posting('Fix my WordPress plugin', 'PHP and React.'),
  posting('Shopify store setup', 'Liquid templates.', ['Shopify']),
];
/** What the subscriber kept: React work, one of ten with WordPress in its skills. */
const kept = [
  posting('React dashboard', 'TypeScript, charts.'),
  posting('React Native app', 'Expo.'),
  posting('Landing page', 'React and Tailwind.', ['WordPress']),
  posting('Next.js shop', 'React, Stripe.'),
  posting('Form wizard', 'React Hook Form.'),
  posting('Port a Vue app', 'To React.'),
  posting('Email templates', 'React Email.'),
  posting('Admin panel', 'React Admin.'),
  posting('Chat widget', 'React, websockets.'),
  posting('Map view', 'React Leaflet.'),
];
const recent = [...wordpressGigs, ...kept];
const subscriber = { keywords: ['react'], excludes: [] as string[] };

describe('suggestExclude', () => {
  it('proposes a word the "not a fit" postings share, with how many recent matches it would have removed', () => {
    expect(suggestExclude({ ...subscriber, notAFit: wordpressGigs, recent })).toEqual({
      term: 'wordpress',
      removed: 3,
      of: 13,
      notAFitRemoved: 2,
      notAFitCount: 3,
      keptRemoved: 1,
      keptCount: 10,
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

  it('prefers the term covering most "not a fit" postings, then the one removing fewer kept matches, then the longer, then the alphabet', () => {
    const notAFit = [posting('Drupal and PHP site'), posting('Drupal and PHP fix'), posting('PHP forms')];
    // php: 3 of the marked ones; drupal: 2. A kept match naming PHP does not turn it: marks are a
    // sample, and the word that names the whole dislike also removes the ones not marked yet.
    const phpKept = [posting('PHP backend, React front'), posting('React on a PHP API')];
    expect(suggestExclude({ ...subscriber, notAFit, recent: [...kept, ...phpKept, ...notAFit] })?.term).toBe('php');
    // Both in the same two marked postings: drupal removes fewer kept matches than php.
    const two = notAFit.slice(0, 2);
    expect(suggestExclude({ ...subscriber, notAFit: two, recent: [...kept, phpKept[0], ...two] })?.term).toBe('drupal');
    // A tie on everything: alphabetical, so the page never flickers between two.
    const tie = [posting('Alpha delta'), posting('Alpha delta')];
    expect(suggestExclude({ ...subscriber, notAFit: tie, recent: [...tie, posting('React')] })?.term).toBe('alpha');
  });

  it('never proposes a word that would remove more than a fifth of the kept matches', () => {
    expect(MAX_KEPT_REMOVED_SHARE).toBe(1 / 5);
    const notAFit = [posting('Angular migration', 'Old code.'), posting('Angular forms', 'Validation.')];
    // Ten kept matches: two may go, three may not.
    const withAngular = (n: number) => kept.map((p, i) => (i < n ? { ...p, description: `${p.description} Angular too.` } : p));
    const two = suggestExclude({ ...subscriber, notAFit, recent: [...notAFit, ...withAngular(2)] });
    expect(two).toMatchObject({ term: 'angular', keptRemoved: 2, keptCount: 10 });
    expect(suggestExclude({ ...subscriber, notAFit, recent: [...notAFit, ...withAngular(3)] })).toBeNull();
    // With fewer than five kept matches none may go.
    expect(suggestExclude({ ...subscriber, notAFit, recent: [...notAFit, ...withAngular(0).slice(0, 4)] })?.term).toBe('angular');
    expect(suggestExclude({ ...subscriber, notAFit, recent: [...notAFit, ...withAngular(1).slice(0, 4)] })).toBeNull();
  });

  it("skips a source's boilerplate, a word on four in five of its postings at hand, even one no kept match has", () => {
    expect(BOILERPLATE_SHARE).toBe(4 / 5);
    expect(MIN_SOURCE_POSTINGS).toBe(5);
    // We Work Remotely's template: every posting ends with "Headquarters: … URL: …". The subscriber
    // kept the other board's postings and marked two of the feed's (each for its own reason).
    const wwr = (title: string) => posting(title, 'Headquarters: Berlin URL: https://example.com', [], 'wwr');
    const marked = [wwr('Sales lead'), wwr('Support agent')];
    const fromFeed = [...marked, wwr('React engineer'), wwr('Frontend developer'), wwr('React Native developer')];
    const recentMatches = [...fromFeed, ...kept];
    expect(suggestExclude({ ...subscriber, notAFit: marked, recent: recentMatches })).toBeNull();
    // With four of the feed's postings at hand its share is not measured, and the word comes through.
    expect(suggestExclude({ ...subscriber, notAFit: marked, recent: [...fromFeed.slice(0, 4), ...kept] })?.term).toBe('headquarters');
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
