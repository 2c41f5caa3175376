import { FieldValue, type DocumentData, type DocumentReference } from 'firebase-admin/firestore';
import { guardedUpdate, type GuardedUpdateOptions } from '../store/guarded-update';
import { entryForStored, writeMatchProfile } from './match-index';
import { layoutsWritten, readIndexLayout } from './match-index-layout';
import { writeWithEntryOrWithout } from './match-index-refusal';
import type { Subscriber } from './subscriber';

/**
 * guardedUpdate for users/{uid}, with the subscriber's match index entry written in the same
 * batch: every flow that changes a subscriber through this (confirm, preferences, pause and
 * resume, unsubscribe, signup, the feed URL's revocation) keeps the index in step by construction,
 * and the version guard on users/{uid} orders the index writes of one subscriber exactly as their
 * document's writes are ordered. The layout is read first (one read): the entry goes to the shard
 * every reader and the repair sweep use. If the store refuses the write because the shard is full,
 * the subscriber's change is made without the entry (match-index-refusal.ts): a save never fails
 * because of the index.
 */
export async function guardedSubscriberUpdate<R>(
  ref: DocumentReference<Subscriber>,
  decide: Parameters<typeof guardedUpdate<R, Subscriber>>[1],
  options: GuardedUpdateOptions<R> = {},
): Promise<R> {
  const db = ref.firestore;
  const layouts = layoutsWritten(await readIndexLayout(db));
  return writeWithEntryOrWithout(db, { uid: ref.id, layouts }, (index) =>
    guardedUpdate<R, Subscriber>(
      ref,
      async (snap, attempt) => {
        const step = await decide(snap, attempt);
        if ('done' in step) return step;
        // The converted subscriber reads back through readSubscriberFields unchanged: good enough to derive an entry from.
        const stored: DocumentData | undefined = snap.data();
        const after = 'create' in step ? step.create : 'delete' in step ? undefined : applyUpdate(stored ?? {}, step.update);
        const change = { before: entryForStored(ref.id, stored), after: entryForStored(ref.id, after), layouts: index.layouts };
        return {
          ...step,
          alongside: (batch) => {
            step.alongside?.(batch);
            index.written = writeMatchProfile(batch, db, ref.id, change);
          },
        };
      },
      options,
    ),
  );
}

/**
 * The document as it will be after `update`: top-level fields replaced, deleted by
 * FieldValue.delete(). Other transforms (increments) never touch the fields an entry is made of;
 * they are kept as sentinels and ignored by readSubscriberFields.
 */
export function applyUpdate(stored: DocumentData, update: DocumentData): DocumentData {
  const after: DocumentData = { ...stored };
  for (const [field, value] of Object.entries<unknown>(update)) {
    if (value instanceof FieldValue && value.isEqual(FieldValue.delete())) delete after[field];
    else after[field] = value;
  }
  return after;
}
