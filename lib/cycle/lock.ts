import type { Firestore } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../store/collections';
import { releaseIfOurs, takeLease } from '../store/lease';
import { toDate } from '../store/timestamps';

/**
 * locks/{name}: a self-expiring timestamp lock that stops two full scans from grinding through
 * the same work. It is a cost optimisation only: the ledger keeps correctness without it. A
 * holder that dies leaves a lock that expires by itself; a live holder releases it in `finally`.
 * It is the store's one lease (lib/store/lease.ts), taken without waiting: a lost race walks away.
 */
export type LockHandle = { release(): Promise<void> };
export type LockResult = { acquired: true; handle: LockHandle } | { acquired: false; owner: string | null; expiresAt: Date | null };

export async function acquireLock(db: Firestore, input: { name: string; owner: string; now: Date; ttlMs: number }): Promise<LockResult> {
  const ref = db.collection(COLLECTIONS.locks).doc(input.name);
  const data = { owner: input.owner, ts: input.now, expiresAt: new Date(input.now.getTime() + input.ttlMs) };
  const outcome = await takeLease<{ owner: string | null; expiresAt: Date } | null>(ref, (snap) => {
    const expiresAt = toDate(snap.get('expiresAt'));
    if (!snap.exists || !expiresAt || expiresAt <= input.now) return { take: data, as: null };
    return { held: { owner: (snap.get('owner') as string | null | undefined) ?? null, expiresAt } };
  });
  if ('held' in outcome && outcome.held) return { acquired: false, ...outcome.held };
  if (!('taken' in outcome)) return { acquired: false, owner: null, expiresAt: null };
  return { acquired: true, handle: { release: () => releaseLock(db, input.name, input.owner) } };
}

/** Deletes the lock only if we still own it: a run whose lock expired and was taken over leaves the new owner's lock alone. */
async function releaseLock(db: Firestore, name: string, owner: string): Promise<void> {
  await releaseIfOurs(db.collection(COLLECTIONS.locks).doc(name), (snap) => snap.get('owner') === owner);
}
