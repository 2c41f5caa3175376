import { describe, expect, it } from 'vitest';
import type { Posting } from '../../lib/feeds/posting';
import { matchPostings } from '../../lib/matching/match-postings';
import { readQueryText } from '../../lib/matching/query/evaluate-query';
import { readPostingText } from '../../lib/matching/posting-text';
import { scorePosting } from '../../lib/matching/score-posting';
import { NO_MIN_PAY, type MinPay } from '../../lib/pay/minimum-pay';
import { keywordQueryText } from '../../lib/query/subscriber-query';
import { queryOfKeywords } from '../../lib/query/keywords-as-query';
import type { QueryNode } from '../../lib/query/query-tree';
import { keywordSubscribers, seededRandom } from '../../scripts/bench/bench-vocabulary';
import { readCorpusPostings } from '../../scripts/bench/corpus-postings';
import { scoreByKeywords } from './query/keyword-matching-before-queries';

/**
 * The promise of the move to queries: a subscription of keywords and excludes, read as its query
 * (stored by the migration, or absent on a document from before it), receives exactly what it
 * received: the same postings, scores, reasons and near misses, over every real corpus posting.
 */

const MINIMUMS: MinPay[] = [
  NO_MIN_PAY,
  { ...NO_MIN_PAY, yearly: { amount: 120_000, currency: 'USD' } },
  { ...NO_MIN_PAY, hourly: { amount: 60, currency: 'USD' }, fixed: { amount: 500, currency: 'USD' } },
  { ...NO_MIN_PAY, yearly: { amount: 70_000, currency: 'EUR' } },
];

function profiles(count: number) {
  const next = seededRandom(7);
  return keywordSubscribers(count).map((s) => ({ ...s, minPay: MINIMUMS[Math.floor(next() * MINIMUMS.length)] }));
}

describe('a keyword subscription read as its query receives exactly what its keywords gave it', () => {
  it('the same verdict (match, score, reasons, near miss) for every real posting, with the query stored and without', async () => {
    const postings: Posting[] = (await readCorpusPostings()).flatMap((file) => file.postings);
    let matched = 0;
    let nearMisses = 0;
    const all = profiles(150).map((profile) => {
      const lists = queryOfKeywords(profile.keywords, profile.excludes);
      const exclusionsFirst: QueryNode | null =
        lists.kind === 'and' ? { kind: 'and', parts: [...lists.parts.slice(1), lists.parts[0]], at: 0 } : null;
      return { profile, migrated: { ...profile, query: keywordQueryText(profile.keywords, profile.excludes) }, lists, exclusionsFirst };
    });
    expect(all.filter((p) => p.exclusionsFirst).length).toBeGreaterThan(50);
    const patterns = new Map<string, RegExp>();
    for (const posting of postings) {
      // Each side reads the posting once for every profile, as a run does.
      const oldText = readPostingText(posting, patterns);
      const newText = readQueryText(posting, patterns);
      for (const { profile, migrated, lists, exclusionsFirst } of all) {
        const before = scoreByKeywords(profile, posting, oldText);
        expect(scorePosting(migrated, posting, newText), `${posting.id} × ${migrated.query}`).toEqual(before);
        expect(scorePosting(profile, posting, newText)).toEqual(before);
        // Its tree, as a parsed query would give it, is read as lists too.
        expect(scorePosting(profile, posting, newText, lists)).toEqual(before);
        // The same query with its exclusions written first is decided clause by clause, not as lists: the same verdict.
        if (exclusionsFirst) expect(scorePosting(profile, posting, newText, exclusionsFirst)).toEqual(before);
        if (before.matched) matched++;
        else if (before.nearMiss) nearMisses++;
      }
    }
    // Not a vacuous agreement: many pairs match, and some are near misses of each kind.
    expect(matched).toBeGreaterThan(1_000);
    expect(nearMisses).toBeGreaterThan(100);
  });

  it('the keyword lookup offers a migrated subscriber every posting it matched, and nothing more is matched', async () => {
    const postings: Posting[] = (await readCorpusPostings()).flatMap((file) => file.postings);
    const subscribers = profiles(400).map((s) => ({ ...s, query: keywordQueryText(s.keywords, s.excludes) }));
    const pairs = (found: { subscriber: { id: string }; posting: Posting; score: number; nearMiss?: string }[]) =>
      found.map((c) => `${c.subscriber.id} ${c.posting.id} ${c.score} ${c.nearMiss ?? ''}`).sort();
    const patterns = new Map<string, RegExp>();
    const expected = postings.flatMap((posting) => {
      const text = readPostingText(posting, patterns);
      return subscribers.flatMap((subscriber) => {
        const verdict = scoreByKeywords(subscriber, posting, text);
        if (verdict.matched) return [{ subscriber, posting, score: verdict.score }];
        return verdict.nearMiss ? [{ subscriber, posting, score: 0, nearMiss: verdict.nearMiss }] : [];
      });
    });
    expect(pairs(matchPostings(postings, subscribers, { keepNearMisses: () => true }))).toEqual(pairs(expected));
  });

  it('a posting read once for every query of a pass decides as one read alone', async () => {
    const [posting] = (await readCorpusPostings()).flatMap((file) => file.postings);
    const shared = readQueryText(posting, new Map());
    for (const profile of profiles(40)) expect(scorePosting(profile, posting, shared)).toEqual(scorePosting(profile, posting));
  });
});
