import type { Posting } from '../feeds/posting';
import { firstToken, tokenize } from './text';
import { indexTermsOf } from './query/index-terms';
import type { QueryNode } from '../query/query-tree';
import { queryOf } from '../query/subscriber-query';
import type { MatchProfile } from './score-posting';

export type { MatchProfile };

/**
 * The keyword lookup: a map from a word to the subscribers whose query needs it (the first word of
 * each of its index terms, lib/matching/query/index-terms.ts), built once per run, so that matching
 * costs grow with postings × candidates, never with postings × subscribers. A keyword subscription
 * is filed under each keyword, as it always was. A query that needs no word in the text (only
 * fields, remote:, pay) is a scan: offered every posting, and counted in `scans`.
 */
export type KeywordLookup<S extends MatchProfile = MatchProfile> = {
  candidatesFor(posting: Posting): S[];
  /** Each subscriber's query, parsed once for the pass; null for one with nothing to match. */
  queryOf(subscriber: S): QueryNode | null;
  size: number;
  scans: number;
};

export function buildKeywordLookup<S extends MatchProfile>(subscribers: S[]): KeywordLookup<S> {
  const byToken = new Map<string, Set<S>>();
  const trees = new Map<S, QueryNode | null>();
  const scanned: S[] = [];
  for (const subscriber of subscribers) {
    const tree = queryOf(subscriber);
    trees.set(subscriber, tree);
    if (!tree) continue;
    const index = indexTermsOf(tree);
    if (index.kind === 'scan') {
      scanned.push(subscriber);
      continue;
    }
    for (const term of index.terms) {
      const token = firstToken(term);
      if (!token) continue;
      let bucket = byToken.get(token);
      if (!bucket) byToken.set(token, (bucket = new Set()));
      bucket.add(subscriber);
    }
  }
  return {
    size: subscribers.length,
    scans: scanned.length,
    queryOf: (subscriber) => (trees.has(subscriber) ? trees.get(subscriber)! : queryOf(subscriber)),
    candidatesFor(posting) {
      const candidates = new Set<S>(scanned);
      const tokens = new Set(tokenize(`${posting.title} ${posting.skills.join(' ')} ${posting.description}`));
      for (const token of tokens) {
        for (const subscriber of byToken.get(token) ?? []) candidates.add(subscriber);
      }
      return [...candidates];
    },
  };
}
