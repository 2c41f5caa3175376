import type { Firestore, FirestoreDataConverter } from 'firebase-admin/firestore';
import { toDate, toTimestamp } from '../store/timestamps';
import type { Posting } from './posting';
import { COLLECTIONS } from '../store/collections';

/**
 * jobs/{source}_{hash}: a posting as stored. `matchState` makes matching resumable: a posting
 * stays `pending` until its deliveries are claimed (by every shard, when callers split the
 * subscribers), so a run that dies after storing postings but before claiming leaves them for
 * the next run instead of losing them.
 */
export type StoredPosting = Posting & {
  matchState: 'pending' | 'matched';
  /** Shards (`k-of-n`) that have matched this posting against their subscribers; absent until one has. */
  matchedShards?: string[];
  runId: string;
  fetchedAt: Date;
  expireAt: Date;
};

export const postingConverter: FirestoreDataConverter<StoredPosting> = {
  toFirestore: (p) => ({
    ...p,
    publishedAt: toTimestamp(p.publishedAt as Date | null),
    fetchedAt: toTimestamp(p.fetchedAt as Date),
    expireAt: toTimestamp(p.expireAt as Date),
  }),
  fromFirestore: (snap) => {
    const d = snap.data();
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
    };
  },
};

export const postingsCollection = (db: Firestore) => db.collection(COLLECTIONS.postings).withConverter(postingConverter);
