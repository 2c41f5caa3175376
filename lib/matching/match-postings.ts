import type { Posting } from '../feeds/posting';
import type { Subscriber } from '../subscribers/subscriber';
import { scorePosting } from './score-posting';
import { buildSubscriberIndex } from './subscriber-index';

export type Candidate<P extends Posting = Posting> = { subscriber: Subscriber; posting: P; score: number; reasons: string[] };

/** Every (subscriber, posting) pair that fits, found through the keyword index. */
export function matchPostings<P extends Posting>(postings: P[], subscribers: Subscriber[]): Candidate<P>[] {
  const index = buildSubscriberIndex(subscribers);
  const found: Candidate<P>[] = [];
  for (const posting of postings) {
    for (const subscriber of index.candidatesFor(posting)) {
      const verdict = scorePosting(subscriber, posting);
      if (verdict.matched) found.push({ subscriber, posting, score: verdict.score, reasons: verdict.reasons });
    }
  }
  return found;
}
