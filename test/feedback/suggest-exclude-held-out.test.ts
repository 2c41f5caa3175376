import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { notAFitFeedback } from '../../lib/ledger/feedback';
import { MAX_KEPT_REMOVED_SHARE, suggestExclude, type ExcludeSuggestion } from '../../lib/feedback/suggest-exclude';
import { buildPosting } from '../../lib/feeds/adapters/build-posting';
import type { Posting } from '../../lib/feeds/posting';
import { parseFeed } from '../../lib/feeds/parse-feed';
import { excludedBy, scorePosting } from '../../lib/matching/score-posting';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';

/**
 * The exclude suggestion measured on held-out feedback, over real postings.
 *
 * A subscriber's taste is a rule over real postings ("no back-end roles"); the matches are what
 * Scout's matcher sends them from a real feed answer, newest first, the latest RECENT_MATCHES of them.
 * Each fold marks a third of the disliked postings "not a fit" (as feedback snapshots, cut as the
 * page stores them) and holds out the rest of the window: the suggestion is made from the marks and
 * judged on the held-out postings only.
 *
 * - precision: of the held-out postings the suggested word removes, the share the subscriber dislikes;
 * - kept removed: of the held-out postings they like, the share the word removes.
 *
 * Data (test/feeds/adapters/corpus/, provenance in each folder's PROVENANCE.md):
 * - We Work Remotely's RSS, `feed/wwr-stats-collector-remote-jobs.xml` and
 *   `feed/wwr-stats-collector-remote-programming-jobs.xml` (maentx/wwr-stats-collector, commit
 *   1dbecb2e04f806bb60900d5308edad801b3f1568), read by Scout's feed parser: every item's text opens
 *   with the board's template ("Headquarters: … URL: …") and carries the board's category label
 *   ("Back-End Programming", "Full-Stack Programming"…) as a skill.
 * - Upwork's search answers, `upwork/aschubbz-userjobsearch-results*.json` (aschubbz/job-scraping-tool,
 *   commit 0d2f493e858b4eba4eb192a4e016d708573e7198), read as the Upwork adapter reads a job (its
 *   skills' names as tags). The capture lacks the job's category (`occupations.category.prefLabel`,
 *   which the adapter adds to the tags); the walk-through's label, "Web Development", is added to
 *   every match here: that one tag is the only thing this test writes itself.
 */

const CORPUS = new URL('../feeds/adapters/corpus/', import.meta.url);
const RECENT_MATCHES = 50; // as the page reads them (read-exclude-suggestion.ts)
const FOLDS = 3;
const NOW = new Date('2026-11-30T06:00:00Z');

function weWorkRemotely(): Posting[] {
  const byId = new Map<string, Posting>();
  for (const file of ['wwr-stats-collector-remote-programming-jobs.xml', 'wwr-stats-collector-remote-jobs.xml']) {
    const xml = readFileSync(new URL(`feed/${file}`, CORPUS), 'utf8');
    for (const posting of parseFeed(xml, { source: 'weworkremotely', baseUrl: 'https://weworkremotely.com/' })) {
      if (!byId.has(posting.id)) byId.set(posting.id, posting);
    }
  }
  return [...byId.values()];
}

type UpworkResult = { id: string; title: string; description: string | null; ontologySkills?: { prettyName: string }[] | null };

function upwork(category: string | null): Posting[] {
  const byId = new Map<string, Posting>();
  for (const file of ['aschubbz-userjobsearch-results.json', 'aschubbz-userjobsearch-results-150.json']) {
    const results = JSON.parse(readFileSync(new URL(`upwork/${file}`, CORPUS), 'utf8')) as UpworkResult[];
    for (const result of results) {
      const posting = buildPosting('upwork', {
        providerId: result.id,
        title: result.title,
        description: result.description ? { value: result.description, html: false } : null,
        url: null,
        tags: [...(result.ontologySkills ?? []).map((skill) => skill.prettyName), ...(category ? [category] : [])],
      });
      if (posting && !byId.has(posting.id)) byId.set(posting.id, posting);
    }
  }
  return [...byId.values()];
}

type Taste = { keywords: string[]; dislikes: (posting: Posting) => boolean };

type Fold = { suggestion: ExcludeSuggestion | null; removed: number; dislikedRemoved: number; likedRemoved: number; liked: number };

function evaluate(postings: Posting[], taste: Taste) {
  const window = postings
    .filter((posting) => scorePosting({ keywords: taste.keywords, excludes: [], minPay: NO_MIN_PAY }, posting).matched)
    .slice(0, RECENT_MATCHES);
  const disliked = window.filter(taste.dislikes);
  const folds: Fold[] = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const marked = disliked.filter((_, i) => i % FOLDS === fold);
    const notAFit = marked.map((posting) => notAFitFeedback({ uid: 'u', posting, now: NOW, retentionDays: 30 }));
    const suggestion = suggestExclude({ keywords: taste.keywords, excludes: [], notAFit, recent: window });
    const heldOut = window.filter((posting) => !marked.includes(posting));
    const removed = suggestion ? heldOut.filter((posting) => excludedBy([suggestion.term], posting) !== null) : [];
    folds.push({
      suggestion,
      removed: removed.length,
      dislikedRemoved: removed.filter(taste.dislikes).length,
      likedRemoved: removed.filter((posting) => !taste.dislikes(posting)).length,
      liked: heldOut.filter((posting) => !taste.dislikes(posting)).length,
    });
  }
  const sum = (pick: (fold: Fold) => number) => folds.reduce((total, fold) => total + pick(fold), 0);
  return {
    matches: window.length,
    disliked: disliked.length,
    terms: folds.map((fold) => fold.suggestion?.term ?? null),
    /** Pooled over the folds with a suggestion. */
    precision: sum((f) => f.dislikedRemoved) / sum((f) => f.removed),
    keptRemoved: sum((f) => f.likedRemoved) / sum((f) => f.liked),
    folds,
  };
}

/** Every fold keeps to the ceiling, as the suggestion saw the kept matches and as the held-out taste says. */
function expectWithinCeiling(folds: Fold[]) {
  for (const { suggestion, likedRemoved, liked } of folds) {
    if (!suggestion) continue;
    expect(suggestion.keptRemoved).toBeLessThanOrEqual(Math.floor(suggestion.keptCount * MAX_KEPT_REMOVED_SHARE));
    expect(likedRemoved / liked).toBeLessThanOrEqual(MAX_KEPT_REMOVED_SHARE);
  }
}

const names = (posting: Posting, pattern: RegExp) => pattern.test([posting.title, ...posting.skills].join(' · '));

const developer: Taste['keywords'] = ['developer', 'engineer'];
/** A front-end developer on Upwork, and what they do not want: work on a site builder rather than in code. */
const frontEnd: Taste['keywords'] = ['javascript', 'html', 'css', 'website', 'landing page', 'react', 'frontend'];
const SITE_BUILDERS =
  /wordpress|wix|shopify|webflow|clickfunnels|bigcommerce|gohighlevel|\bghl\b|teachable|sitecore|lovable|squarespace|ontraport/i;
const notSiteBuilders: Taste = { keywords: frontEnd, dislikes: (p) => names(p, SITE_BUILDERS) };
/** Words a board puts on (nearly) every posting it sends, or on every match of a subscriber. */
const BOILERPLATE = ['web', 'development', 'web development', 'programming', 'headquarters', 'url', 'https', 'com', 'weworkremotely'];

describe('the exclude suggestion on held-out feedback, over real postings', () => {
  it("the walk-through on real Upwork matches: 'development' would have removed 8 of 11, the suggestion is 'wordpress', 3 of 11, no kept match", () => {
    // Matches 13–23 of the front-end subscriber's, as captured (no tag added). The five site-builder
    // postings among them are marked. Before the kept-match ceiling, the boilerplate rule and
    // 'development' as a stopword, the page proposed 'development' here: on 8 of the 11, from "Web Development", "Ecommerce Website
    // Development" and the like.
    const window = upwork(null)
      .filter((posting) => scorePosting({ keywords: frontEnd, excludes: [], minPay: NO_MIN_PAY }, posting).matched)
      .slice(12, 23);
    const marked = window.filter(notSiteBuilders.dislikes);
    expect(marked).toHaveLength(5);
    expect(window.filter((posting) => excludedBy(['development'], posting) !== null)).toHaveLength(8);
    const notAFit = marked.map((posting) => notAFitFeedback({ uid: 'u', posting, now: NOW, retentionDays: 30 }));
    expect(suggestExclude({ keywords: frontEnd, excludes: [], notAFit, recent: window })).toEqual({
      term: 'wordpress',
      removed: 3,
      of: 11,
      notAFitRemoved: 3,
      notAFitCount: 5,
      keptRemoved: 0,
      keptCount: 6,
    });
  });

  it('in all 38 eleven-match windows of the real Upwork matches, a word never removes over a fifth of the kept ones, 0.4% of them over all (the rule before: over a fifth in 11 windows, up to 71%)', () => {
    // Each window's site-builder postings marked. The rule before proposed 'design' or 'development'
    // in 13 of them, and removed 13.6% of the kept matches over all (9.7% with the label added).
    for (const category of [null, 'Web Development']) {
      const matches = upwork(category).filter(
        (posting) => scorePosting({ keywords: frontEnd, excludes: [], minPay: NO_MIN_PAY }, posting).matched,
      );
      expect(matches.length - 10).toBe(38);
      let suggested = 0;
      let keptRemoved = 0;
      let keptCount = 0;
      for (let start = 0; start + 11 <= matches.length; start++) {
        const window = matches.slice(start, start + 11);
        const notAFit = window
          .filter(notSiteBuilders.dislikes)
          .map((posting) => notAFitFeedback({ uid: 'u', posting, now: NOW, retentionDays: 30 }));
        const suggestion = suggestExclude({ keywords: frontEnd, excludes: [], notAFit, recent: window });
        if (!suggestion) continue;
        // With the label on every match, it is the board's; as captured, "Web Development" is one skill among others.
        if (category) expect(BOILERPLATE).not.toContain(suggestion.term);
        expect(suggestion.keptRemoved).toBeLessThanOrEqual(Math.floor(suggestion.keptCount * MAX_KEPT_REMOVED_SHARE));
        suggested++;
        keptRemoved += suggestion.keptRemoved;
        keptCount += suggestion.keptCount;
      }
      // 37 suggestions; 1 kept match removed of 240 kept in those windows (0.4%).
      expect({ suggested, keptRemoved, keptCount }).toEqual({ suggested: 37, keptRemoved: 1, keptCount: 240 });
    }
  });

  it("We Work Remotely, a developer who wants no back-end roles: 'back-end programming' in every fold, held-out precision 100%, no liked posting removed", () => {
    const result = evaluate(weWorkRemotely(), { keywords: developer, dislikes: (p) => names(p, /back-end programming/i) });
    expectWithinCeiling(result.folds);
    for (const term of result.terms) expect(BOILERPLATE).not.toContain(term);
    expect({ ...result, folds: undefined }).toEqual({
      matches: 50,
      disliked: 13,
      terms: ['back-end programming', 'back-end programming', 'back-end programming'],
      precision: 1,
      keptRemoved: 0,
      folds: undefined,
    });
  });

  it('We Work Remotely, no back-end and no DevOps roles (two kinds, no one word for both): the larger kind is named, precision 100%, 0% of liked removed', () => {
    const result = evaluate(weWorkRemotely(), {
      keywords: developer,
      dislikes: (p) => names(p, /back-end programming|devops and sysadmin/i),
    });
    expectWithinCeiling(result.folds);
    for (const term of result.terms) expect(BOILERPLATE).not.toContain(term);
    expect(result.terms).toEqual(['back-end programming', 'back-end programming', 'back-end programming']);
    expect(result.precision).toBe(1);
    expect(result.keptRemoved).toBe(0);
  });

  it("Upwork with the category label on every match (the walk-through's boilerplate): never 'web', held-out precision 87.5%, 1.1% of liked removed", () => {
    const result = evaluate(upwork('Web Development'), notSiteBuilders);
    expectWithinCeiling(result.folds);
    for (const term of result.terms) expect(BOILERPLATE).not.toContain(term);
    // The rule before proposed 'web design', 'web design', 'design': precision 65.8%, 14.4% of liked removed.
    expect({ matches: result.matches, disliked: result.disliked, terms: result.terms }).toEqual({
      matches: 48,
      disliked: 18,
      terms: ['ecommerce website development', 'web design', 'lovable'],
    });
    expect(result.precision).toBeCloseTo(7 / 8);
    expect(result.keptRemoved).toBeCloseTo(1 / 90);
  });

  it('Upwork as captured: held-out precision 80%, 3.3% of liked removed', () => {
    const result = evaluate(upwork(null), notSiteBuilders);
    expectWithinCeiling(result.folds);
    expect(result.terms).toEqual(['web development', 'web design', 'lovable']);
    expect(result.precision).toBeCloseTo(12 / 15);
    expect(result.keptRemoved).toBeCloseTo(3 / 90);
  });
});
