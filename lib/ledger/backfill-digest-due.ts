import type { Firestore, QueryDocumentSnapshot } from 'firebase-admin/firestore';
import { isLostPrecondition } from '../store/firestore-errors';
import { commitGroups } from '../store/write-groups';
import { COLLECTIONS } from '../store/collections';
import { queuedDeliveriesPage, type Delivery } from './delivery';

/**
 * Queued items written before digest schedules carry a `digestDate` (a UTC day) and no
 * `digestDueAt`, and the flush's query finds only what has one: without this they would wait
 * forever, a loss nobody sees. Each run (until done) walks the queued items in id order, a few
 * pages at a time from where the last run stopped, and gives each one without it the instant the
 * old rule made it due — its day at DIGEST_HOUR_UTC, exactly what it would have had. Guarded by
 * the version read: an item that moved meanwhile is left as it is. Once the walk reaches the end
 * it records so, and every later run pays one read.
 */
export const DIGEST_DUE_BACKFILL = 'backfill-digest-due';
const PAGE = 500;
const PAGES_PER_RUN = 4;

const cursorRef = (db: Firestore) => db.collection(COLLECTIONS.cursors).doc(DIGEST_DUE_BACKFILL);

export async function backfillDigestDue(
  db: Firestore,
  input: { digestHourUtc: number; now: Date },
): Promise<{ updated: number; done: boolean }> {
  const cursor = (await cursorRef(db).get()).data() as { after?: string | null; doneAt?: unknown } | undefined;
  if (cursor?.doneAt) return { updated: 0, done: true };
  let after = cursor?.after ?? null;
  let updated = 0;
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const snap = await queuedDeliveriesPage(db, after, PAGE);
    const missing = snap.docs.filter((doc) => !doc.data().digestDueAt && doc.data().digestDate);
    const committed = await commitGroups(
      db,
      missing.map((doc) => ({
        size: 1,
        apply: (batch) => batch.update(doc.ref, { digestDueAt: legacyDueAt(doc, input.digestHourUtc) }, { lastUpdateTime: doc.updateTime }),
      })),
      isLostPrecondition,
    );
    updated += committed.filter(Boolean).length;
    if (snap.size < PAGE) {
      await cursorRef(db).set({ after: null, doneAt: input.now, updated });
      return { updated, done: true };
    }
    after = snap.docs[snap.docs.length - 1].id;
  }
  await cursorRef(db).set({ after, doneAt: null }, { merge: true });
  return { updated, done: false };
}

/** The old rule: an item of day D was due from D at DIGEST_HOUR_UTC. A value that is not a day is due from its creation. */
export function legacyDigestDueAt(digestDate: string | null | undefined, createdAt: Date, digestHourUtc: number): Date {
  const due = new Date(`${digestDate ?? ''}T${String(digestHourUtc).padStart(2, '0')}:00:00Z`);
  return Number.isNaN(due.getTime()) ? createdAt : due;
}

function legacyDueAt(doc: QueryDocumentSnapshot<Delivery>, digestHourUtc: number): Date {
  return legacyDigestDueAt(doc.data().digestDate, doc.data().createdAt, digestHourUtc);
}
