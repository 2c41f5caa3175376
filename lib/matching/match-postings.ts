import type { Posting } from '../feeds/posting';
import type { Subscriber } from '../subscribers/subscriber';
import { decidePlanned, type MatchProfile, type NearMiss } from './score-posting';
import { buildKeywordLookup } from './keyword-lookup';
import type { PatternCache } from './posting-text';
import { readQueryText } from './query/evaluate-query';

/** A pair that fits; or, with `nearMiss`, one that matched what they look for and was left out (an exclusion, pay). */
export type Candidate<P extends Posting = Posting, S extends MatchProfile = Subscriber> = {
  subscriber: S;
  posting: P;
  score: number;
  reasons: string[];
  nearMiss?: NearMiss;
};

/**
 * Every (subscriber, posting) pair that fits, found through the keyword lookup; and, for the
 * subscribers `keepNearMisses` names (daily ones: their digest's near-miss line counts them), the
 * pairs that matched what they look for and were left out, marked `nearMiss`. A subscriber is
 * anything with a query (or keywords and excludes) and pay minimums: the run passes stored
 * subscribers, the signup preview (lib/preview) the profile being typed, and both get this same
 * matching. Each query is parsed once per pass, not once per posting.
 */
export function matchPostings<P extends Posting, S extends MatchProfile = Subscriber>(
  postings: P[],
  subscribers: S[],
  options: { keepNearMisses?: (subscriber: S) => boolean } = {},
): Candidate<P, S>[] {
  const lookup = buildKeywordLookup(subscribers);
  const patterns: PatternCache = new Map();
  const found: Candidate<P, S>[] = [];
  for (const posting of postings) {
    // Read once for all its candidates: each term is looked for in the whole text once, not once per subscriber.
    const text = readQueryText(posting, patterns);
    for (const { subscriber, plan } of lookup.candidatesFor(posting)) {
      const verdict = decidePlanned(plan, subscriber, posting, text);
      if (verdict.matched) found.push({ subscriber, posting, score: verdict.score, reasons: verdict.reasons });
      else if (verdict.nearMiss && options.keepNearMisses?.(subscriber))
        found.push({ subscriber, posting, score: 0, reasons: verdict.reasons ?? [], nearMiss: verdict.nearMiss });
    }
  }
  return found;
}
