import type { Firestore } from 'firebase-admin/firestore';
import type { AtomicWrite } from '../store/atomic-writes';
import { nearMissesRef, nearMissesUpdate, type NearMissKind } from './near-misses';

/** One subscriber's near misses for one digest: the postings a keyword matched and an exclude or a pay minimum left out. */
export type NearMissesOfDigest = { uid: string; day: string; jobs: { jobId: string; kind: NearMissKind }[] };

/**
 * Merged into nearMisses/{uid}_{day} (a set: counting them again on a retry or a re-planned claim
 * changes nothing). Not a delivery: nothing is sent.
 */
export function recordNearMisses(db: Firestore, nearMisses: NearMissesOfDigest, expireAt: Date): AtomicWrite {
  const update = nearMissesUpdate({ ...nearMisses, expireAt });
  return {
    size: 1,
    bytes: 200 + nearMisses.jobs.length * 20,
    apply: (batch) => batch.set(nearMissesRef(db, nearMisses.uid, nearMisses.day).withConverter(null), update, { merge: true }),
  };
}
