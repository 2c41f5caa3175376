import type { Firestore, WriteBatch } from 'firebase-admin/firestore';
import { isAlreadyExists } from './firestore-errors';
import { MAX_BATCH_WRITES } from './create-documents';

/** Writes that must land together or not at all, e.g. an alert's deliveries and its outbox row. */
export type WriteGroup = { size: number; apply(batch: WriteBatch): void };

/**
 * Commits many all-or-nothing groups in few round trips: groups are packed into batches, and a
 * batch that loses a race (by default ALREADY_EXISTS on one of its creates; for fenced updates, a
 * lost precondition) is retried group by group, so only the groups that really collided are
 * reported lost (false) and the rest still land.
 */
export async function commitGroups(
  db: Firestore,
  groups: WriteGroup[],
  isLoss: (error: unknown) => boolean = isAlreadyExists,
): Promise<boolean[]> {
  const results = new Array<boolean>(groups.length).fill(false);
  let start = 0;
  while (start < groups.length) {
    let end = start;
    let writes = 0;
    while (end < groups.length && writes + groups[end].size <= MAX_BATCH_WRITES) writes += groups[end++].size;
    if (end === start) throw new Error(`a write group of ${groups[start].size} writes exceeds one batch`);
    const batch = db.batch();
    for (let i = start; i < end; i++) groups[i].apply(batch);
    try {
      await batch.commit();
      results.fill(true, start, end);
    } catch (error) {
      if (!isLoss(error)) throw error;
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
    start = end;
  }
  return results;
}
