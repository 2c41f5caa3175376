import type { Firestore, FirestoreDataConverter } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../store/collections';
import { addDays, toDate, toTimestamp, type Stored } from '../store/timestamps';
import { canonicalUrl, jobFingerprint, normaliseText } from './job-identity';
import { hashKey, type Posting } from './posting';

/**
 * postingKeys/{kind}_{hash}: which stored posting is the canonical one for a job, by one of the
 * signs that it is the same job (job-identity.ts): `url` (its canonical URL) or `fp` (its
 * fingerprint). The key's id is the data's own hash, so two runs storing two copies of one job
 * compute the same key and the store's transaction decides which copy became the canonical.
 *
 * A key holds for DUPLICATE_WINDOW_DAYS from the first sighting (`expireAt`, which the TTL policy
 * and `scout prune` also honour); a key read past its `expireAt` counts as absent, so a copy seen
 * after the window is a new job with a key of its own — the TTL may be a day late, the code never is.
 */
export type PostingKeyKind = 'url' | 'fp';
export type PostingKey = { canonicalId: string; firstSeenAt: Date; expireAt: Date };

/** How long copies of one job collapse into one card. */
export const DUPLICATE_WINDOW_DAYS = 30;

/** Never longer than the postings are kept: a key must not outlive the canonical posting it names. */
export const keyWindowDays = (retentionDays: number) => Math.min(DUPLICATE_WINDOW_DAYS, retentionDays);

export const postingKeyId = (kind: PostingKeyKind, value: string) => `${kind}_${hashKey(value)}`;

/**
 * The keys of a posting, the URL's first: the same address is stronger evidence than similar
 * text, so when the two name different canonical postings the URL's wins.
 */
export function postingKeyIds(
  posting: Pick<Posting, 'url' | 'title' | 'description' | 'company'>,
  /** Canonical URLs known not to name one job (urlsNamingSeveralJobs): no key for them. */
  notJobUrls: ReadonlySet<string> = new Set(),
): string[] {
  const found = canonicalUrl(posting.url);
  const url = found && !notJobUrls.has(found) ? found : null;
  const fingerprint = jobFingerprint(posting);
  return [...(url ? [postingKeyId('url', url)] : []), ...(fingerprint ? [`fp_${fingerprint}`] : [])];
}

/**
 * The canonical URLs that one answer gives to postings with different titles: a board that links
 * every item to its front page, or to a search. Such a URL says nothing about which job it is, and
 * as a key it would make every job of the source one card.
 */
export function urlsNamingSeveralJobs(postings: Pick<Posting, 'url' | 'title'>[]): Set<string> {
  const titles = new Map<string, string>();
  const shared = new Set<string>();
  for (const posting of postings) {
    const url = canonicalUrl(posting.url);
    if (!url) continue;
    const title = normaliseText(posting.title);
    const seen = titles.get(url);
    if (seen === undefined) titles.set(url, title);
    else if (seen !== title) shared.add(url);
  }
  return shared;
}

/** A key that still holds at `now`. */
export const isLiveKey = (key: PostingKey | undefined, now: Date): key is PostingKey => !!key && key.expireAt > now;

export const newPostingKey = (canonicalId: string, now: Date, retentionDays: number): PostingKey => ({
  canonicalId,
  firstSeenAt: now,
  expireAt: addDays(now, keyWindowDays(retentionDays)),
});

/** A key as stored: for an update, which does not go through the converter. */
export const postingKeyFields = (key: PostingKey) => ({
  canonicalId: key.canonicalId,
  firstSeenAt: toTimestamp(key.firstSeenAt),
  expireAt: toTimestamp(key.expireAt),
});

const postingKeyConverter: FirestoreDataConverter<PostingKey> = {
  toFirestore: (key) => postingKeyFields(key as PostingKey),
  fromFirestore: (snap) => {
    const d = snap.data() as Stored<PostingKey>;
    return { canonicalId: d.canonicalId, firstSeenAt: toDate(d.firstSeenAt)!, expireAt: toDate(d.expireAt)! };
  },
};

export const postingKeysCollection = (db: Firestore) => db.collection(COLLECTIONS.postingKeys).withConverter(postingKeyConverter);
