import type { Firestore, QueryDocumentSnapshot } from 'firebase-admin/firestore';
import { commitAtomicWrites, type AtomicWrite } from '../../store/atomic-writes';
import { COLLECTIONS } from '../../store/collections';
import { isLostPrecondition } from '../../store/firestore-errors';
import { queuedDeliveriesPage, type Delivery } from '../delivery';
import type { MigrationContext } from './migration';

const PAGE = 500;

/**
 * The walk a backfill of queued items makes: the queue page by page in id order, each page's
 * writes committed as atomic writes (one whose precondition lost leaves its item as it is), and a
 * checkpoint after each page, so a run that dies is resumed there. A store whose cycles, before
 * migrations, finished the same walk (their cursor `earlierCursor` has `doneAt`) needs nothing.
 * A dry run counts the writes each page would make and makes none.
 */
export async function walkQueuedItems(
  ctx: MigrationContext,
  input: { earlierCursor: string; writesFor: (page: QueryDocumentSnapshot<Delivery>[]) => AtomicWrite[] },
): Promise<{ changed: number; note?: string }> {
  const { db } = ctx;
  if (await earlierWalkDone(db, input.earlierCursor))
    return { changed: 0, note: `already done by the cycles (cursors/${input.earlierCursor})` };
  let after = ctx.resumeAfter;
  let changed = 0;
  for (;;) {
    const snap = await queuedDeliveriesPage(db, after, PAGE);
    const writes = input.writesFor(snap.docs);
    changed += ctx.dryRun ? writes.length : (await commitAtomicWrites(db, writes, isLostPrecondition)).filter(Boolean).length;
    if (snap.size < PAGE) return { changed };
    after = snap.docs[snap.docs.length - 1].id;
    if (!ctx.dryRun) await ctx.checkpoint(after);
  }
}

/** Whether the per-run walk of the code before migrations recorded that it reached the end. */
async function earlierWalkDone(db: Firestore, cursor: string): Promise<boolean> {
  return Boolean((await db.collection(COLLECTIONS.cursors).doc(cursor).get()).get('doneAt'));
}
