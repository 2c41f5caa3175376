import type { Firestore } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../store/collections';

/**
 * cursors/claim-{all | k-of-n}: where a run stopped by its time budget left off claiming, as the
 * last subscriber (uid) whose slice it started. The next run starts after it, so subscribers not
 * reached are reached first instead of the same first slices being walked again every run.
 *
 * Only an ordering hint: pairs already claimed are skipped by the ledger whatever the order, so
 * two overlapping runs writing it (last write wins) cost at most some re-walking, never a send.
 */
export const claimCursorId = (shardTag: string | null) => `claim-${shardTag ?? 'all'}`;

const cursorRef = (db: Firestore, shardTag: string | null) => db.collection(COLLECTIONS.cursors).doc(claimCursorId(shardTag));

export async function readClaimCursor(db: Firestore, shardTag: string | null): Promise<string | null> {
  const snap = await cursorRef(db, shardTag).get();
  return snap.exists ? ((snap.get('resumeAfter') as string | null | undefined) ?? null) : null;
}

/** Saves where to resume (`resumeAfter`), or clears the cursor once a run got through everybody (null). */
export async function saveClaimCursor(
  db: Firestore,
  input: { shardTag: string | null; resumeAfter: string | null; runId: string; now: Date },
): Promise<void> {
  if (input.resumeAfter === null) await cursorRef(db, input.shardTag).delete();
  else await cursorRef(db, input.shardTag).set({ resumeAfter: input.resumeAfter, runId: input.runId, at: input.now });
}
