import { FieldValue, type DocumentSnapshot, type Firestore, type FirestoreDataConverter } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../store/collections';
import { readMany } from '../store/create-documents';
import { shortHash } from '../store/short-hash';
import { toDate, toTimestamp, type Stored } from '../store/timestamps';

/**
 * nearMisses/{uid}_{day}: the postings that matched a daily subscriber's keywords and were left
 * out of their digest for `day` by an exclude or by a fixed budget under their minimum, for the
 * digest's near-miss line ("4 more matched your keywords: 3 under your $500 minimum, …").
 *
 * One small document per subscriber and digest, not one per posting: the claim adds each posting's
 * short hash with arrayUnion, which is a set, so a run that claims the same postings again (a
 * retry, an overlapping run, a re-planned attempt) counts nothing twice, and the flush reads one
 * document per digest in the getAll it already makes. The arrays are exempt from indexing
 * (firestore.indexes.json); 12-character hashes keep even 50,000 a day far under 1 MiB.
 */
export type NearMissKind = 'excluded' | 'under_min_budget';

export type NearMisses = {
  uid: string;
  /** The UTC day of the digest these would have gone in (its digestDate). */
  day: string;
  excluded: string[];
  underMinBudget: string[];
  expireAt: Date;
};

export const nearMissesId = (uid: string, day: string) => `${uid}_${day}`;
/** A posting's entry in the arrays: short, fixed-length, and the same on every run. */
export const nearMissEntry = (jobId: string) => shortHash(jobId, 12);

export const nearMissesConverter: FirestoreDataConverter<NearMisses> = {
  toFirestore: (n) => ({ ...n, expireAt: toTimestamp(n.expireAt as Date) }),
  fromFirestore: (snap) => {
    const d = snap.data() as Stored<NearMisses>;
    return {
      uid: d.uid,
      day: d.day,
      excluded: Array.isArray(d.excluded) ? d.excluded : [],
      underMinBudget: Array.isArray(d.underMinBudget) ? d.underMinBudget : [],
      expireAt: toDate(d.expireAt)!,
    };
  },
};

export const nearMissesCollection = (db: Firestore) => db.collection(COLLECTIONS.nearMisses).withConverter(nearMissesConverter);
export const nearMissesRef = (db: Firestore, uid: string, day: string) => nearMissesCollection(db).doc(nearMissesId(uid, day));

/** The fields a claim merges in for one subscriber's near misses of one digest (idempotent: arrayUnion). */
export function nearMissesUpdate(input: { uid: string; day: string; jobs: { jobId: string; kind: NearMissKind }[]; expireAt: Date }) {
  const of = (kind: NearMissKind) => input.jobs.filter((j) => j.kind === kind).map((j) => nearMissEntry(j.jobId));
  const excluded = of('excluded');
  const underMinBudget = of('under_min_budget');
  return {
    uid: input.uid,
    day: input.day,
    ...(excluded.length > 0 ? { excluded: FieldValue.arrayUnion(...excluded) } : {}),
    ...(underMinBudget.length > 0 ? { underMinBudget: FieldValue.arrayUnion(...underMinBudget) } : {}),
    expireAt: toTimestamp(input.expireAt),
  };
}

/** Each subscriber's near misses for `day`, in one getAll. */
export async function readNearMisses(
  db: Firestore,
  digests: { uid: string; day: string }[],
): Promise<Map<string, DocumentSnapshot<NearMisses>>> {
  const unique = [...new Map(digests.map((d) => [d.uid, d.day]))];
  const snaps = await readMany(
    db,
    unique.map(([uid, day]) => nearMissesRef(db, uid, day)),
  );
  return new Map(unique.map(([uid], i) => [uid, snaps[i]]));
}
