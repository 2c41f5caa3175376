import type { Posting } from '../feeds/posting';
import { tokenize } from './text';
import { fieldWords, INDEXED_FIELDS, indexTermParts, indexTermsOf, type IndexedField, type QueryIndex } from './query/index-terms';
import { planOfProfile, type MatchProfile, type QueryPlan } from './score-posting';

export type { MatchProfile };

/** A subscriber as a pass holds them: their query planned once (score-posting.ts), for every posting. */
export type LookupEntry<S extends MatchProfile> = { subscriber: S; plan: QueryPlan };

/**
 * The keyword lookup: a map from a word to the subscribers whose query needs it (the first word of
 * each of its index terms, lib/matching/query/index-terms.ts), built once per run, so that matching
 * costs grow with postings × candidates, never with postings × subscribers. A keyword subscription
 * is filed under each keyword, as it always was; a `company:`, `location:` or `source:` term under
 * its word in that field's map. A query that needs no word anywhere (only remote:, pay, NOTs) is
 * a scan: offered every posting, and counted in `scans`. A subscriber with nothing to look for is
 * filed nowhere.
 */
export type KeywordLookup<S extends MatchProfile = MatchProfile> = {
  candidatesFor(posting: Posting): LookupEntry<S>[];
  size: number;
  scans: number;
};

export function buildKeywordLookup<S extends MatchProfile>(subscribers: S[]): KeywordLookup<S> {
  // One map per place a word is looked up: the posting's text, and each field an index term may name.
  const byToken = new Map<'text' | IndexedField, Map<string, Set<LookupEntry<S>>>>();
  const scanned: LookupEntry<S>[] = [];
  for (const subscriber of subscribers) {
    const planned = planOfProfile(subscriber);
    if (!planned) continue;
    const candidate = { subscriber, plan: planned.plan };
    // Keyword lists are filed under each keyword, as they always were; a tree under its index terms.
    const index: QueryIndex = planned.tree ? indexTermsOf(planned.tree) : { kind: 'terms', terms: subscriber.keywords };
    if (index.kind === 'scan') {
      scanned.push(candidate);
      continue;
    }
    for (const term of index.terms) {
      const filed = indexTermParts(term);
      if (!filed) continue;
      let place = byToken.get(filed.in);
      if (!place) byToken.set(filed.in, (place = new Map<string, Set<LookupEntry<S>>>()));
      let bucket = place.get(filed.token);
      if (!bucket) place.set(filed.token, (bucket = new Set()));
      bucket.add(candidate);
    }
  }
  const offer = (into: Set<LookupEntry<S>>, place: 'text' | IndexedField, tokens: Iterable<string>) => {
    const buckets = byToken.get(place);
    if (!buckets) return;
    for (const token of tokens) for (const candidate of buckets.get(token) ?? []) into.add(candidate);
  };
  return {
    size: subscribers.length,
    scans: scanned.length,
    candidatesFor(posting) {
      const candidates = new Set<LookupEntry<S>>(scanned);
      offer(candidates, 'text', new Set(tokenize(`${posting.title} ${posting.skills.join(' ')} ${posting.description}`)));
      for (const field of INDEXED_FIELDS) if (byToken.has(field)) offer(candidates, field, fieldWords(posting, field));
      return [...candidates];
    },
  };
}
