import type { QueryDocumentSnapshot } from 'firebase-admin/firestore';
import type { Delivery } from '../delivery';
import type { Migration } from './migration';
import { walkQueuedItems } from './walk-queued-items';
import { fenceAt } from '../../store/lease';

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
  apply: (ctx) =>
    walkQueuedItems(ctx, {
      earlierCursor: 'backfill-digest-due',
      // Guarded by the version read: an item that moved meanwhile (claimed, skipped) is left as it is.
      writesFor: (page) =>
        page
          .filter((doc) => !doc.data().digestDueAt && doc.data().digestDate)
          .map((doc) => ({
            size: 1,
            apply: (batch) => batch.update(doc.ref, { digestDueAt: legacyDueAt(doc, ctx.digestHourUtc) }, fenceAt(doc.updateTime)),
          })),
    }),
};

/** The old rule: an item of day D was due from D at DIGEST_HOUR_UTC. A value that is not a day is due from its creation. */
export function legacyDigestDueAt(digestDate: string | null | undefined, createdAt: Date, digestHourUtc: number): Date {
  const due = new Date(`${digestDate ?? ''}T${String(digestHourUtc).padStart(2, '0')}:00:00Z`);
  return Number.isNaN(due.getTime()) ? createdAt : due;
}

function legacyDueAt(doc: QueryDocumentSnapshot<Delivery>, digestHourUtc: number): Date {
  return legacyDigestDueAt(doc.data().digestDate, doc.data().createdAt, digestHourUtc);
}
