import type { Firestore } from 'firebase-admin/firestore';
import { isAlreadyExists } from '../store/firestore-errors';
import { DEFAULT_FIT_THRESHOLD } from './fit-profile';
import { entryFor, entryForStored, writeMatchProfile } from './match-index';
import { layoutsWritten, readIndexLayout } from './match-index-layout';
import { writeWithEntryOrWithout } from './match-index-refusal';
import { applyUpdate } from './subscriber-writes';
import { storedQueryOf } from '../query/subscriber-query';
import {
  defaultScheduleFields,
  definedScheduleFields,
  FIRST_PROFILE_VERSION,
  leavePendingFields,
  minPayOfSubscriberInput,
  normaliseEmail,
  subscriberId,
  subscriberInputSchema,
  subscribersCollection,
  type Subscriber,
  type SubscriberInput,
  verdictProfileChanged,
} from './subscriber';

export type AddOutcome = 'created' | 'updated' | 'kept-unsubscribed';

/**
 * The operator's way in (CLI, CSV import, demo, tests): adds a subscriber as active. Signing up
 * twice can never make two accounts (the id is the email), and an import never revives someone
 * who unsubscribed, not even while someone's re-signup of the address waits for its owner to
 * confirm: opt-outs win.
 */
export async function addActiveSubscriber(db: Firestore, input: SubscriberInput, now: Date): Promise<{ id: string; outcome: AddOutcome }> {
  const parsed = subscriberInputSchema.parse(input);
  const id = subscriberId(parsed.email);
  const ref = subscribersCollection(db).doc(id);
  const query = storedQueryOf({ keywords: [...new Set(parsed.keywords)], excludes: [...new Set(parsed.excludes)], query: parsed.query });
  // The schema refused the input whose query does not parse.
  if (!query.ok) throw new Error(query.error.message);
  const subscriber: Subscriber = {
    id,
    email: normaliseEmail(parsed.email),
    ...query.stored,
    minPay: minPayOfSubscriberInput(parsed),
    mode: parsed.mode,
    about: parsed.about ?? '',
    profileVersion: FIRST_PROFILE_VERSION,
    fitThreshold: parsed.fitThreshold ?? DEFAULT_FIT_THRESHOLD,
    status: 'active',
    ...defaultScheduleFields(),
    ...definedScheduleFields(parsed),
    createdAt: now,
    confirmedAt: now,
    updatedAt: now,
  };
  const layouts = layoutsWritten(await readIndexLayout(db));
  try {
    // The subscriber and their match index entry land together, or (a full shard) the subscriber alone.
    await writeWithEntryOrWithout(db, { uid: id, layouts }, async (index) => {
      const batch = db.batch();
      batch.create(ref, subscriber);
      index.written = writeMatchProfile(batch, db, id, { before: undefined, after: entryFor(subscriber), layouts: index.layouts });
      await batch.commit();
    });
    return { id, outcome: 'created' };
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  return writeWithEntryOrWithout(db, { uid: id, layouts }, (index) =>
    db.runTransaction(async (tx) => {
      const snap = await tx.get(ref);
      const existing = snap.data();
      // `unsubscribedAt` outlives a re-signup: until the address's owner confirms again, the opt-out stands.
      const optedOut = existing?.status === 'unsubscribed' || (existing?.status === 'pending' && snap.get('unsubscribedAt') != null);
      if (optedOut) return { id, outcome: 'kept-unsubscribed' as const };
      // Read in this transaction: a concurrent change makes it retry, so the version goes up exactly once per change.
      const about = parsed.about ?? existing?.about ?? '';
      const profileChanged = !existing || verdictProfileChanged(existing, { ...subscriber, about });
      const update = {
        keywords: subscriber.keywords,
        excludes: subscriber.excludes,
        query: subscriber.query,
        minPay: subscriber.minPay,
        mode: subscriber.mode,
        ...definedScheduleFields(parsed),
        about,
        ...(parsed.fitThreshold !== undefined ? { fitThreshold: parsed.fitThreshold } : {}),
        ...(profileChanged ? { profileVersion: (existing?.profileVersion ?? 0) + 1 } : {}),
        status: 'active',
        confirmedAt: existing?.confirmedAt ?? now,
        updatedAt: now,
        // A pending signup made active here is confirmed by the operator: nothing may expire it now.
        ...leavePendingFields(),
      };
      tx.update(ref, update);
      const change = {
        before: entryForStored(id, existing),
        after: entryForStored(id, applyUpdate(existing ?? {}, update)),
        layouts: index.layouts,
      };
      index.written = writeMatchProfile(tx, db, id, change);
      return { id, outcome: 'updated' as const };
    }),
  );
}
