import type { Firestore } from 'firebase-admin/firestore';
import { guardedSubscriberUpdate } from '../subscribers/subscriber-writes';
import { subscribersCollection, type Subscriber, type SubscriberStatus } from '../subscribers/subscriber';
import { canReadArchive } from './open-private-link';

export type RevokeFeedResult =
  | { ok: true; subscriber: Subscriber }
  | { ok: false; kind: 'unknown-subscriber' }
  | { ok: false; kind: 'not-editable'; status: SubscriberStatus };

/**
 * "Revoke and make a new feed URL": bumps `feedTokenVersion`, so every feed URL signed with an
 * older version opens nothing from this write on (open-private-link.ts), and the preferences page
 * shows the URL of the new one. An update guarded by the version read: two presses at once make
 * two bumps, never one lost, and a subscriber who is gone is not brought back.
 */
export async function revokeFeedUrl(db: Firestore, input: { uid: string; now: Date }): Promise<RevokeFeedResult> {
  return guardedSubscriberUpdate<RevokeFeedResult>(
    subscribersCollection(db).doc(input.uid),
    (snap) => {
      const current = snap.data();
      if (!snap.exists || !current) return { done: { ok: false, kind: 'unknown-subscriber' } };
      if (!canReadArchive(current.status)) return { done: { ok: false, kind: 'not-editable', status: current.status } };
      const update = { feedTokenVersion: (current.feedTokenVersion ?? 0) + 1, updatedAt: input.now };
      return { update, result: { ok: true, subscriber: { ...current, ...update } } };
    },
    { action: 'revoking their feed URL' },
  );
}
