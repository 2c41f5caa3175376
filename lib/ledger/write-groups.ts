import type { Firestore, WriteBatch } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import { isAlreadyExists } from './firestore-errors';
import { COMMIT_CONCURRENCY, MAX_BATCH_WRITES } from './create-documents';

/** Writes that must land together or not at all, e.g. an alert's deliveries and its outbox row. */
export type WriteGroup = { size: number; apply(batch: WriteBatch): void };

/**
 * Commits many all-or-nothing groups in few round trips: groups are packed into batches (up to
 * COMMIT_CONCURRENCY in flight), and a batch that loses a race (by default ALREADY_EXISTS on one
 * of its creates; for fenced updates, a lost precondition) is retried group by group, so only the
 * groups that really collided are reported lost (false) and the rest still land.
 */
export async function commitGroups(
  db: Firestore,
  groups: WriteGroup[],
  isLoss: (error: unknown) => boolean = isAlreadyExists,
): Promise<boolean[]> {
  const results = new Array<boolean>(groups.length).fill(false);
  const commit = pLimit(COMMIT_CONCURRENCY);
  const batches: Promise<void>[] = [];
  let start = 0;
  while (start < groups.length) {
    let end = start;
    let writes = 0;
    while (end < groups.length && writes + groups[end].size <= MAX_BATCH_WRITES) writes += groups[end++].size;
    if (end === start) throw new Error(`a write group of ${groups[start].size} writes exceeds one batch`);
    const [from, to] = [start, end];
    batches.push(commit(() => commitPacked(db, groups, from, to, results, isLoss)));
    start = end;
  }
  await Promise.all(batches);
  return results;
}

async function commitPacked(
  db: Firestore,
  groups: WriteGroup[],
  start: number,
  end: number,
  results: boolean[],
  isLoss: (error: unknown) => boolean,
): Promise<void> {
  const batch = db.batch();
  for (let i = start; i < end; i++) groups[i].apply(batch);
  try {
    await batch.commit();
    results.fill(true, start, end);
    return;
  } catch (error) {
    if (!isLoss(error)) throw error;
  }
  await Promise.all(
    groups.slice(start, end).map(async (group, offset) => {
      const single = db.batch();
      group.apply(single);
      try {
        await single.commit();
        results[start + offset] = true;
      } catch (inner) {
        if (!isLoss(inner)) throw inner;
      }
    }),
  );
}
