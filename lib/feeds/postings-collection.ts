import type { Firestore, FirestoreDataConverter } from 'firebase-admin/firestore';
import { toDate, toTimestamp, type Stored } from '../store/timestamps';
import type { Budget, Posting } from './posting';
import { COLLECTIONS } from '../store/collections';

/** One place a job was listed: the source, its name on a card, and the link there (also the attribution some providers require). */
export type Sighting = { source: string; label: string; url: string | null; seenAt: Date };

/**
 * jobs/{source}_{hash}: a posting as stored. `matchState` makes matching resumable: a posting
 * stays `pending` until its deliveries are claimed (by every shard, when callers split the
 * subscribers), so a run that dies after storing postings but before claiming leaves them for
 * the next run instead of losing them.
 *
 * One card per real job (store-postings.ts): a posting that is a copy of one stored before is
 * kept as `duplicate` (never matched) and names its `canonicalId`; the canonical posting carries
 * every `sightings`, and a repost or a budget change reopens it (`pending` again, `revision` + 1).
 * Deliveries are keyed by the canonical id, so a subscriber reached once is never reached again.
 */
export type StoredPosting = Posting & {
  matchState: 'pending' | 'matched' | 'duplicate';
  /** Shards (`k-of-n`) that have matched this posting against their subscribers; absent until one has. */
  matchedShards?: string[];
  runId: string;
  fetchedAt: Date;
  expireAt: Date;
  /** The posting this one is a copy of; its own id on a canonical posting. Absent on postings stored before dedup: their own. */
  canonicalId?: string;
  /** +1 each time matching is reopened: a run closes only the revision it matched (markPostingsMatched). Absent = 0. */
  revision?: number;
  /** When the job was first seen, on any source (a canonical posting's). */
  firstSeenAt?: Date;
  /** Where the job was listed, one entry per source, the canonical's own first (a canonical posting's; capped). */
  sightings?: Sighting[];
  /** Set when a copy was seen again later or on the same source under a new id. */
  repostedAt?: Date | null;
  /** The budget before the last change a copy brought; null when it never changed. */
  previousBudget?: Budget | null;
};

export const postingConverter: FirestoreDataConverter<StoredPosting> = {
  toFirestore: (p) => ({
    ...p,
    publishedAt: toTimestamp(p.publishedAt as Date | null),
    fetchedAt: toTimestamp(p.fetchedAt as Date),
    expireAt: toTimestamp(p.expireAt as Date),
    ...(p.firstSeenAt ? { firstSeenAt: toTimestamp(p.firstSeenAt as Date) } : {}),
    ...(p.repostedAt ? { repostedAt: toTimestamp(p.repostedAt as Date) } : {}),
    ...(p.sightings ? { sightings: (p.sightings as Sighting[]).map(sightingToFirestore) } : {}),
  }),
  fromFirestore: (snap) => {
    const d = snap.data() as StoredPostingFields;
    return {
      id: snap.id,
      source: d.source,
      guid: d.guid ?? null,
      title: d.title,
      url: d.url ?? null,
      description: d.description ?? '',
      budget: d.budget ?? null,
      skills: d.skills ?? [],
      publishedAt: toDate(d.publishedAt),
      ...(d.company != null ? { company: d.company } : {}),
      ...(d.location != null ? { location: d.location } : {}),
      ...(d.remote != null ? { remote: d.remote } : {}),
      matchState: d.matchState,
      ...(d.matchedShards ? { matchedShards: d.matchedShards } : {}),
      runId: d.runId,
      fetchedAt: toDate(d.fetchedAt)!,
      expireAt: toDate(d.expireAt)!,
      ...(d.canonicalId != null ? { canonicalId: d.canonicalId } : {}),
      ...(d.revision != null ? { revision: d.revision } : {}),
      ...(d.firstSeenAt != null ? { firstSeenAt: toDate(d.firstSeenAt)! } : {}),
      ...(Array.isArray(d.sightings) ? { sightings: d.sightings.map(sightingFromFirestore) } : {}),
      ...(d.repostedAt != null ? { repostedAt: toDate(d.repostedAt) } : {}),
      ...(d.previousBudget != null ? { previousBudget: d.previousBudget } : {}),
    };
  },
};

/** A posting as its converter writes it; its sightings are read one field at a time (sightingFromFirestore). */
type StoredPostingFields = Stored<Omit<StoredPosting, 'id' | 'sightings'>> & { sightings?: Record<string, unknown>[] };

export const sightingToFirestore = (s: Sighting) => ({ source: s.source, label: s.label, url: s.url, seenAt: toTimestamp(s.seenAt) });
const sightingFromFirestore = (s: Record<string, unknown>): Sighting => ({
  source: String(s.source),
  label: String(s.label ?? s.source),
  url: typeof s.url === 'string' ? s.url : null,
  seenAt: toDate(s.seenAt) ?? new Date(0),
});

export const postingsCollection = (db: Firestore) => db.collection(COLLECTIONS.postings).withConverter(postingConverter);
