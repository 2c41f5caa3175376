import type { Posting } from '../feeds/posting';
import type { Subscriber } from '../subscribers/subscriber';
import { scorePosting, type NearMiss } from './score-posting';
import { buildSubscriberIndex } from './subscriber-index';

/** A pair that fits; or, with `nearMiss`, one that matched the keywords and was left out (an exclude, the budget floor). */
export type Candidate<P extends Posting = Posting> = {
  subscriber: Subscriber;
  posting: P;
  score: number;
  reasons: string[];
  nearMiss?: NearMiss;
};

/**
 * Every (subscriber, posting) pair that fits, found through the keyword index; and, for the
 * subscribers `keepNearMisses` names (daily ones: their digest's near-miss line counts them), the
 * pairs that matched a keyword and were left out, marked `nearMiss`.
 */
export function matchPostings<P extends Posting>(
  postings: P[],
  subscribers: Subscriber[],
  options: { keepNearMisses?: (subscriber: Subscriber) => boolean } = {},
): Candidate<P>[] {
  const index = buildSubscriberIndex(subscribers);
  const found: Candidate<P>[] = [];
  for (const posting of postings) {
    for (const subscriber of index.candidatesFor(posting)) {
      const verdict = scorePosting(subscriber, posting);
      if (verdict.matched) found.push({ subscriber, posting, score: verdict.score, reasons: verdict.reasons });
      else if (verdict.nearMiss && options.keepNearMisses?.(subscriber))
        found.push({ subscriber, posting, score: 0, reasons: verdict.reasons ?? [], nearMiss: verdict.nearMiss });
    }
  }
  return found;
}
