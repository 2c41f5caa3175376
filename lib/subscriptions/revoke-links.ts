import type { Firestore } from 'firebase-admin/firestore';
import { guardedSubscriberUpdate } from '../subscribers/subscriber-writes';
import { subscribersCollection, type SubscriberStatus } from '../subscribers/subscriber';
import { canEditPreferences } from './preferences';

export type RevokeLinksResult =
  | { ok: true; linkVersion: number }
  | { ok: false; kind: 'unknown-subscriber' }
  | { ok: false; kind: 'not-editable'; status: SubscriberStatus };

/**
 * "Revoke my links": bumps `linkVersion`, so every link emailed so far — preferences, archive,
 * "not a fit", the private feed URL — opens nothing from this write on, the very link that pressed
 * the button included. Nothing new is shown to whoever pressed it (it may be the one who found a
 * leaked link): a fresh link goes only to the mailbox, through the signup form. Unsubscribe links
 * of older versions still unsubscribe and show nothing. An update guarded by the version read: two
 * presses at once are two bumps, and a subscriber who is gone is not brought back.
 */
export async function revokeLinks(db: Firestore, input: { uid: string; now: Date }): Promise<RevokeLinksResult> {
  return guardedSubscriberUpdate<RevokeLinksResult>(
    subscribersCollection(db).doc(input.uid),
    (snap) => {
      const current = snap.data();
      if (!snap.exists || !current) return { done: { ok: false, kind: 'unknown-subscriber' } };
      if (!canEditPreferences(current.status)) return { done: { ok: false, kind: 'not-editable', status: current.status } };
      const linkVersion = (current.linkVersion ?? 0) + 1;
      return { update: { linkVersion, updatedAt: input.now }, result: { ok: true, linkVersion } };
    },
    { action: 'revoking their links' },
  );
}
