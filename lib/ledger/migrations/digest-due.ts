import type { Firestore, QueryDocumentSnapshot } from 'firebase-admin/firestore';
import { isLostPrecondition } from '../../store/firestore-errors';
import { commitAtomicWrites } from '../../store/atomic-writes';
import { COLLECTIONS } from '../../store/collections';
import { queuedDeliveriesPage, type Delivery } from '../delivery';
import type { Migration, MigrationContext } from './migration';

/** Where the cycles of the code before migrations recorded this same walk: done there, nothing is left to do. */
const EARLIER_CURSOR = 'backfill-digest-due';
const PAGE = 500;

/**
 * Queued items written before digest schedules carry a `digestDate` (a UTC day) and no
 * `digestDueAt`, and the flush's query finds only what has one: without this they would wait
 * forever, a loss nobody sees. Until this migration, every cycle walked the queue a few pages at a
 * time; a store whose cycles finished that walk (its `cursors/backfill-digest-due` has `doneAt`)
 * needs nothing more, and one that never ran those cycles (one still on day documents, or a
 * backup restored from before them) gets it here.
 */
export const digestDue: Migration = {
  version: 2,
  name: 'digest-due',
  changes: 'gives each queued item without `digestDueAt` the instant the old rule made it due: its day at DIGEST_HOUR_UTC',
  why: 'the flush asks for `digestDueAt <= now`, so a queued item without it would never be sent',
  apply: (ctx) => backfillDigestDue(ctx),
};

async function backfillDigestDue(ctx: MigrationContext): Promise<{ changed: number; note?: string }> {
  const { db } = ctx;
  if (await earlierWalkDone(db, EARLIER_CURSOR)) return { changed: 0, note: `already done by the cycles (cursors/${EARLIER_CURSOR})` };
  let after = ctx.resumeAfter;
  let changed = 0;
  for (;;) {
    const snap = await queuedDeliveriesPage(db, after, PAGE);
    const missing = snap.docs.filter((doc) => !doc.data().digestDueAt && doc.data().digestDate);
    // Guarded by the version read: an item that moved meanwhile (claimed, skipped) is left as it is.
    const committed = await commitAtomicWrites(
      db,
      missing.map((doc) => ({
        size: 1,
        apply: (batch) => batch.update(doc.ref, { digestDueAt: legacyDueAt(doc, ctx.digestHourUtc) }, { lastUpdateTime: doc.updateTime }),
      })),
      isLostPrecondition,
    );
    changed += committed.filter(Boolean).length;
    if (snap.size < PAGE) return { changed };
    after = snap.docs[snap.docs.length - 1].id;
    await ctx.checkpoint(after);
  }
}

/** Whether the per-run walk of the code before migrations recorded that it reached the end. */
export async function earlierWalkDone(db: Firestore, cursor: string): Promise<boolean> {
  return Boolean((await db.collection(COLLECTIONS.cursors).doc(cursor).get()).get('doneAt'));
}

/** The old rule: an item of day D was due from D at DIGEST_HOUR_UTC. A value that is not a day is due from its creation. */
export function legacyDigestDueAt(digestDate: string | null | undefined, createdAt: Date, digestHourUtc: number): Date {
  const due = new Date(`${digestDate ?? ''}T${String(digestHourUtc).padStart(2, '0')}:00:00Z`);
  return Number.isNaN(due.getTime()) ? createdAt : due;
}

function legacyDueAt(doc: QueryDocumentSnapshot<Delivery>, digestHourUtc: number): Date {
  return legacyDigestDueAt(doc.data().digestDate, doc.data().createdAt, digestHourUtc);
}
