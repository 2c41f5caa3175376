import type { Firestore } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../store/collections';

/**
 * cursors/claim-{all | k-of-n}: what a run stopped by its time budget leaves the next one, so that
 * the catch-up resumes instead of repeating.
 *
 * `resumeAfter`: the last subscriber (uid) whose subscriber batch the run started. The next run starts after
 * it, so subscribers not reached go first.
 *
 * `passes`: which pairs are done. A pass is a set of postings and the ring of subscribers, in uid
 * order, (from, through], whose claims for those postings the runs have made in full. The next run
 * skips those pairs without reading their deliveries: before, a catch-up read the ledger again for
 * every pair its predecessors had claimed, and at 10,000 subscribers read 55,029 documents to send
 * the last 2,000 alerts. A pass whose ring closes is done for every subscriber: its postings are
 * closed right away.
 *
 * The cursor never decides whether a pair is sent, only whether it is read: a pair outside every
 * pass is read and claimed by the ledger as before (its create() is the check), and a pair inside
 * one has its delivery already, written by the run that grew the pass. A cursor written by a run
 * is true when written (a pass grows only over subscriber batches that run finished), so overlapping runs
 * (last write wins) lose information, never add a false pair. A run that gave up on a subscriber
 * leaves no passes, since that subscriber's pairs are not all done.
 *
 * A posting is named in a pass with its revision: an edited posting is matched again from scratch.
 * A subscriber who signs up in a done ring meanwhile is not matched with the pass's postings, as
 * with a run that was not cut short, which closes its postings when it ends.
 */
export type ClaimPass = { from: string; through: string; postings: string[] };
export type ClaimCursor = { resumeAfter: string | null; passes: ClaimPass[] };

/**
 * The postings all passes name, at most: two runs' worth. At the longest posting id (85 bytes and
 * a revision) the cursor stays under 400 KB; past it the oldest passes are forgotten (their pairs
 * are read again, the way every pair was before passes).
 */
export const MAX_PASS_POSTINGS = 4_000;

export const claimCursorId = (shardTag: string | null) => `claim-${shardTag ?? 'all'}`;

/** How a pass names one version of a posting. */
export const passKey = (posting: { id: string; revision?: number }) =>
  posting.revision ? `${posting.id}#${posting.revision}` : posting.id;

const cursorRef = (db: Firestore, shardTag: string | null) => db.collection(COLLECTIONS.cursors).doc(claimCursorId(shardTag));

export async function readClaimCursor(db: Firestore, shardTag: string | null): Promise<ClaimCursor | null> {
  const snap = await cursorRef(db, shardTag).get();
  if (!snap.exists) return null;
  return {
    resumeAfter: (snap.get('resumeAfter') as string | null | undefined) ?? null,
    passes: (snap.get('passes') as ClaimPass[] | undefined) ?? [],
  };
}

/** Saves the cursor, or deletes it once a run got through everybody (null). */
export async function saveClaimCursor(
  db: Firestore,
  input: { shardTag: string | null; cursor: ClaimCursor | null; runId: string; now: Date },
): Promise<void> {
  if (input.cursor === null) await cursorRef(db, input.shardTag).delete();
  else await cursorRef(db, input.shardTag).set({ ...input.cursor, runId: input.runId, at: input.now });
}

/** Whether `uid` lies in the ring (from, through] of uids in order; '' is the ring's start, before every uid. */
export function inRing(uid: string, from: string, through: string): boolean {
  if (from === through) return false;
  return from < through ? uid > from && uid <= through : uid > from || uid <= through;
}

/** The pairs the cursor's passes say are done: skipped by the claim without a read. */
export function donePairs(cursor: ClaimCursor | null): (uid: string, posting: { id: string; revision?: number }) => boolean {
  const passes = (cursor?.passes ?? []).map((p) => ({ ...p, postings: new Set(p.postings) }));
  if (passes.length === 0) return () => false;
  return (uid, posting) => {
    const key = passKey(posting);
    return passes.some((p) => p.postings.has(key) && inRing(uid, p.from, p.through));
  };
}

/**
 * The pairs no run has claimed yet, as far as the cursor knows: a posting of a pass that ends where
 * the next run starts, with a subscriber outside its ring. The claim creates them without reading
 * them first, as it does the pairs of postings the run itself stored. Only a saving, never a check:
 * should one exist after all (a run that crashed past the ring, or overlapped), its create() loses,
 * and that subscriber is read whole in the next attempt.
 */
export function unreachedPairs(cursor: ClaimCursor | null): (uid: string, posting: { id: string; revision?: number }) => boolean {
  const start = cursor?.resumeAfter ?? '';
  const passes = (cursor?.passes ?? []).filter((p) => p.through === start).map((p) => ({ ...p, postings: new Set(p.postings) }));
  if (passes.length === 0) return () => false;
  return (uid, posting) => {
    const key = passKey(posting);
    return passes.some((p) => p.postings.has(key) && !inRing(uid, p.from, p.through));
  };
}

/**
 * The cursor after a run (pure): what its claims reached, added to what the cursor said.
 *   - not cut short → null: every pair is done, the run closes its postings itself;
 *   - gave up on a subscriber → the resume point only;
 *   - cut short → each pass that ended where the run started grows by the ring the run walked,
 *     (start, resumeAfter], for its postings the run had; a pass whose ring closes is done, and
 *     its postings come back in `closed`. The run's other postings start a pass of that ring.
 * Returns `previous` itself when nothing changed, so the caller writes only a change.
 */
export function advanceClaimCursor(
  previous: ClaimCursor | null,
  run: { postings: string[]; resumeAfter: string | null; truncated: boolean; gaveUp: number },
): { cursor: ClaimCursor | null; closed: string[] } {
  if (!run.truncated) return { cursor: null, closed: [] };
  const start = previous?.resumeAfter ?? '';
  const through = run.resumeAfter ?? '';
  if (through === start) return { cursor: previous, closed: [] };
  if (run.gaveUp > 0) return { cursor: { resumeAfter: run.resumeAfter, passes: [] }, closed: [] };

  const walked = new Set(run.postings);
  const passes: ClaimPass[] = [];
  const covered = new Set<string>();
  const closed: string[] = [];
  for (const pass of previous?.passes ?? []) {
    const had = pass.postings.filter((p) => walked.has(p));
    const notHad = pass.postings.filter((p) => !walked.has(p));
    if (notHad.length > 0) passes.push({ ...pass, postings: notHad });
    // A pass that ended elsewhere (an overlapping run moved the resume point) is kept as it was.
    if (had.length === 0 || pass.through !== start) {
      if (had.length > 0) passes.push({ ...pass, postings: had });
      continue;
    }
    had.forEach((p) => covered.add(p));
    if (inRing(pass.from, start, through)) closed.push(...had);
    else passes.push({ from: pass.from, through, postings: had });
  }
  const fresh = run.postings.filter((p) => !covered.has(p));
  if (fresh.length > 0) passes.push({ from: start, through, postings: fresh });
  while (passes.reduce((n, p) => n + p.postings.length, 0) > MAX_PASS_POSTINGS) passes.shift();
  return { cursor: { resumeAfter: run.resumeAfter, passes }, closed };
}
