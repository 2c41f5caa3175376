import type { Posting } from '../feeds/posting';
import type { Subscriber } from '../subscribers/subscriber';
import { firstToken, tokenize } from './text';

/**
 * An inverted index from each keyword's first token to the subscribers who use it, built once per
 * run, so that matching costs grow with postings × candidates, never with postings × subscribers.
 */
export type SubscriberIndex = { candidatesFor(posting: Posting): Subscriber[]; size: number };

export function buildSubscriberIndex(subscribers: Subscriber[]): SubscriberIndex {
  const byToken = new Map<string, Set<Subscriber>>();
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
      const candidates = new Set<Subscriber>();
      const tokens = new Set(tokenize(`${posting.title} ${posting.skills.join(' ')} ${posting.description}`));
      for (const token of tokens) {
        for (const subscriber of byToken.get(token) ?? []) candidates.add(subscriber);
      }
      return [...candidates];
    },
  };
}
