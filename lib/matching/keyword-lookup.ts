import type { Posting } from '../feeds/posting';
import type { Subscriber } from '../subscribers/subscriber';
import { firstToken, tokenize } from './text';

/** What matching reads of a subscriber: a stored one, or a profile not saved yet (the signup preview). */
export type MatchProfile = Pick<Subscriber, 'keywords' | 'excludes' | 'minPay'>;

/**
 * The keyword lookup: a map from each keyword's first token to the subscribers who use it, built once per
 * run, so that matching costs grow with postings × candidates, never with postings × subscribers.
 */
export type KeywordLookup<S extends MatchProfile = Subscriber> = { candidatesFor(posting: Posting): S[]; size: number };

export function buildKeywordLookup<S extends MatchProfile = Subscriber>(subscribers: S[]): KeywordLookup<S> {
  const byToken = new Map<string, Set<S>>();
  for (const subscriber of subscribers) {
    for (const keyword of subscriber.keywords) {
      const token = firstToken(keyword);
      if (!token) continue;
      let bucket = byToken.get(token);
      if (!bucket) byToken.set(token, (bucket = new Set()));
      bucket.add(subscriber);
    }
  }
  return {
    size: subscribers.length,
    candidatesFor(posting) {
      const candidates = new Set<S>();
      const tokens = new Set(tokenize(`${posting.title} ${posting.skills.join(' ')} ${posting.description}`));
      for (const token of tokens) {
        for (const subscriber of byToken.get(token) ?? []) candidates.add(subscriber);
      }
      return [...candidates];
    },
  };
}
