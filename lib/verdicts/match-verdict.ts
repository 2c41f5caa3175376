import type { DocumentSnapshot, Firestore, FirestoreDataConverter } from 'firebase-admin/firestore';
import { readMany } from '../store/create-documents';
import { COLLECTIONS } from '../store/collections';
import { toDate, toTimestamp, type Stored } from '../store/timestamps';

/**
 * matches/{uid}_{jobId}: the model's verdict on one posting for one subscriber, scored once
 * (docs/design.md §2.1, §2.2). The document is also the claim on the model call that makes it:
 *   scoring: created with create() by the run that will ask (the check is the write), with a
 *            lease; a fault or the budget deletes it again (guarded by its version), so nothing
 *            but a real answer is ever kept
 *   scored:  the answer, written over the claim guarded by the claim's version, so a holder
 *            whose lease was taken over can no longer write; "not a fit" (fit 0) is kept as well
 * A verdict made under an older profileVersion or PROMPT_VERSION, or a claim whose lease has run
 * out, is claimed again by an update guarded by the version read (lib/verdicts/score-once.ts).
 * Nothing in it grows with the data: `reason` is capped at MAX_REASON_LENGTH and exempt from
 * indexing (firestore.indexes.json).
 */
export type MatchState = 'scoring' | 'scored';

export type MatchVerdict = {
  uid: string;
  jobId: string;
  state: MatchState;
  /** 0–100; null while `scoring`. */
  fit: number | null;
  /** Plain text, at most MAX_REASON_LENGTH characters; null while `scoring`. */
  reason: string | null;
  /** The model that answered (AI_MODEL), or that is being asked. */
  model: string;
  /** wire.ts PROMPT_VERSION of the contract that made it. */
  promptVersion: number;
  /** The subscriber's profile version the verdict was made for. */
  profileVersion: number;
  /** `scoring` only: after this, another run may take the claim over. */
  leaseUntil: Date | null;
  /** The run that claimed (and, once scored, answered) it. */
  runId: string;
  createdAt: Date;
  scoredAt: Date | null;
  expireAt: Date;
};

/** The pair's id: the same as its delivery's (deliveryId), so both are keyed by the data. */
export const matchId = (uid: string, jobId: string) => `${uid}_${jobId}`;

export const matchVerdictConverter: FirestoreDataConverter<MatchVerdict> = {
  toFirestore: (m) => ({
    ...m,
    leaseUntil: toTimestamp(m.leaseUntil as Date | null),
    createdAt: toTimestamp(m.createdAt as Date),
    scoredAt: toTimestamp(m.scoredAt as Date | null),
    expireAt: toTimestamp(m.expireAt as Date),
  }),
  fromFirestore: (snap) => {
    const d = snap.data() as Stored<MatchVerdict>;
    return {
      uid: d.uid,
      jobId: d.jobId,
      state: d.state,
      fit: d.fit ?? null,
      reason: d.reason ?? null,
      model: d.model,
      promptVersion: d.promptVersion,
      profileVersion: d.profileVersion,
      leaseUntil: toDate(d.leaseUntil),
      runId: d.runId,
      createdAt: toDate(d.createdAt)!,
      scoredAt: toDate(d.scoredAt),
      expireAt: toDate(d.expireAt)!,
    };
  },
};

export const matchesCollection = (db: Firestore) => db.collection(COLLECTIONS.matches).withConverter(matchVerdictConverter);
export const matchRef = (db: Firestore, uid: string, jobId: string) => matchesCollection(db).doc(matchId(uid, jobId));

/** The verdicts of one subscriber's postings, by jobId: one getAll per batch of ids, never one get() per posting. */
export async function readMatchVerdicts(
  db: Firestore,
  uid: string,
  jobIds: string[],
): Promise<Map<string, DocumentSnapshot<MatchVerdict>>> {
  const unique = [...new Set(jobIds)];
  const snaps = await readMany(
    db,
    unique.map((jobId) => matchRef(db, uid, jobId)),
  );
  return new Map(unique.map((jobId, i) => [jobId, snaps[i]]));
}
