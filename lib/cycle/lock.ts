import type { Firestore } from 'firebase-admin/firestore';
import { isAlreadyExists, isLostPrecondition } from '../store/firestore-errors';
import { toDate } from '../store/timestamps';
import { COLLECTIONS } from '../store/collections';

/**
 * locks/{name}: a self-expiring timestamp lock that stops two full scans from grinding through
 * the same work. It is a cost optimisation only: the ledger keeps correctness without it. A
 * holder that dies leaves a lock that expires by itself; a live holder releases it in `finally`.
 */
export type LockHandle = { release(): Promise<void> };
export type LockResult = { acquired: true; handle: LockHandle } | { acquired: false; owner: string | null; expiresAt: Date | null };

export async function acquireLock(db: Firestore, input: { name: string; owner: string; now: Date; ttlMs: number }): Promise<LockResult> {
  const ref = db.collection(COLLECTIONS.locks).doc(input.name);
  const data = { owner: input.owner, ts: input.now, expiresAt: new Date(input.now.getTime() + input.ttlMs) };
  const snap = await ref.get();
  try {
    if (!snap.exists) {
      await ref.create(data);
    } else {
      const expiresAt = toDate(snap.get('expiresAt'));
      if (expiresAt && expiresAt > input.now)
        return { acquired: false, owner: (snap.get('owner') as string | null | undefined) ?? null, expiresAt };
      // Take over an expired lock only if nobody else did since we read it.
      await ref.update(data, { lastUpdateTime: snap.updateTime! });
    }
  } catch (error) {
    if (isAlreadyExists(error) || isLostPrecondition(error)) return { acquired: false, owner: null, expiresAt: null };
    throw error;
  }
  return { acquired: true, handle: { release: () => releaseLock(db, input.name, input.owner) } };
}

/** Deletes the lock only if we still own it: a run whose lock expired and was taken over leaves the new owner's lock alone. */
async function releaseLock(db: Firestore, name: string, owner: string): Promise<void> {
  const ref = db.collection(COLLECTIONS.locks).doc(name);
  const snap = await ref.get();
  if (!snap.exists || snap.get('owner') !== owner) return;
  try {
    await ref.delete({ lastUpdateTime: snap.updateTime! });
  } catch (error) {
    if (!isLostPrecondition(error)) throw error;
  }
}
