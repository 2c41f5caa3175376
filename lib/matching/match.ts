import type { Firestore, FirestoreDataConverter } from 'firebase-admin/firestore';
import { toDate, toTimestamp } from '../ledger/timestamps';

/** matches/{uid}_{jobId}: a posting is scored once per subscriber and the verdict kept. */
export type Match = { uid: string; jobId: string; score: number; reasons: string[]; runId: string; scoredAt: Date; expireAt: Date };

export const matchId = (uid: string, jobId: string) => `${uid}_${jobId}`;

export const matchConverter: FirestoreDataConverter<Match> = {
  toFirestore: (m) => ({ ...m, scoredAt: toTimestamp(m.scoredAt as Date), expireAt: toTimestamp(m.expireAt as Date) }),
  fromFirestore: (snap) => {
    const d = snap.data();
    return {
      uid: d.uid,
      jobId: d.jobId,
      score: d.score,
      reasons: d.reasons ?? [],
      runId: d.runId,
      scoredAt: toDate(d.scoredAt)!,
      expireAt: toDate(d.expireAt)!,
    };
  },
};

export const matchesCollection = (db: Firestore) => db.collection('matches').withConverter(matchConverter);
