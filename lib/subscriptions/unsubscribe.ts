import { FieldValue, type Firestore } from 'firebase-admin/firestore';
import { guardedSubscriberUpdate } from '../subscribers/subscriber-writes';
import { isCurrentLink, verifyLinkToken, type LinkClaims, type TokenCheck } from '../subscribers/link-token';
import { skipQueuedDeliveries } from './skip-queued-deliveries';
import { leavePendingFields, readProfileVersion, subscribersCollection } from '../subscribers/subscriber';
import { channelFields, readChannels } from '../channels/channel';
import { deleteChannelLinks } from './channel-links';

export type UnsubscribeFailure = Extract<TokenCheck, { ok: false }>['reason'] | 'unknown-subscriber';

export type UnsubscribeResult =
  | {
      ok: true;
      uid: string;
      alreadyUnsubscribed: boolean;
      skippedDeliveries: number;
      /** The link was of an older link version (or from before links carried the subscriber encrypted): its page may say nothing about the subscriber. */
      olderLink: boolean;
      /**
       * This call's own opt-out, when it ended a confirmed subscription: the link version it wrote,
       * which an undo link must carry (./undo-unsubscribe.ts). Null when nothing was undoable.
       */
      undoable: { linkVersion: number } | null;
    }
  | { ok: false; reason: UnsubscribeFailure };

/** The delivery reason the dispatcher and the digest flush also use for this subscriber state. */
export const UNSUBSCRIBED_REASON = 'subscriber_unsubscribed';

/**
 * Opts a subscriber out from a signed unsubscribe link, of any link version: mail clients keep the
 * RFC 8058 one-click URL of an old email, and the law wants its opt-out to keep working (docs/security.md).
 * Unsubscribing is harmless to whoever is subscribed; what an older link may not do is reveal
 * anything, so the result says whether it was current. Idempotent: a second call changes nothing
 * on the subscriber (the first `unsubscribedAt` stays) but sweeps queued deliveries again, so a
 * call that died between the two steps is completed by the retry.
 */
export async function unsubscribeSubscriber(
  db: Firestore,
  input: { token: string | null | undefined; secret: string; now: Date },
): Promise<UnsubscribeResult> {
  const check = verifyLinkToken(input.token, { secret: input.secret, purpose: 'unsubscribe', now: input.now });
  if (!check.ok) return { ok: false, reason: check.reason };
  const { uid } = check.claims;
  const marked = await markUnsubscribed(db, uid, input.now, check.claims);
  if (marked.result === 'unknown') return { ok: false, reason: 'unknown-subscriber' };
  const skippedDeliveries = await skipQueuedDeliveries(db, { uid, reason: UNSUBSCRIBED_REASON });
  return {
    ok: true,
    uid,
    alreadyUnsubscribed: marked.result === 'already',
    skippedDeliveries,
    olderLink: !marked.current,
    undoable: marked.result === 'done' && marked.undoable ? { linkVersion: marked.linkVersion } : null,
  };
}

/**
 * The status change is an update guarded by the version read (a concurrent edit, e.g. an import
 * or a preferences change, makes us re-read instead of overwriting it), never a create: a link
 * for a subscriber who is gone must not bring a document back. A pending subscriber's signup
 * nonce goes too (its confirmation link is dead), and so does its `expireAt`: the document is
 * now the record of an opt-out, kept so an import never revives the address. Every channel goes
 * in the same write (the list and channelStates empty, so the match index entry has no routes),
 * and with them, in the same batch, the Telegram links that pointed at them (channel-links.ts):
 * /stop in that chat then finds nothing. An undo does not bring channels back: they are verified again.
 */
type Marked = { result: 'done' | 'already' | 'unknown'; current: boolean; linkVersion: number; undoable: boolean };

async function markUnsubscribed(db: Firestore, uid: string, now: Date, claims: LinkClaims): Promise<Marked> {
  const ref = subscribersCollection(db).doc(uid);
  return guardedSubscriberUpdate<Marked>(
    ref,
    (snap) => {
      if (!snap.exists || !snap.updateTime) return { done: { result: 'unknown', current: false, linkVersion: 0, undoable: false } };
      const linkVersion = readProfileVersion(snap.get('linkVersion'));
      const current = isCurrentLink(claims, { linkVersion });
      const status: unknown = snap.get('status');
      if (status === 'unsubscribed') return { done: { result: 'already', current, linkVersion, undoable: false } };
      // Only a confirmed subscription can be given back: undoing a pending one would skip the opt-in.
      const undoable = status === 'active' || status === 'paused';
      // The private feed's URL, and every link emailed so far, die with the subscription: someone who comes back gets new ones, never the old.
      const feedTokenVersion = readProfileVersion(snap.get('feedTokenVersion')) + 1;
      const channels = readChannels(snap.get('channels'));
      return {
        update: {
          status: 'unsubscribed',
          unsubscribedAt: now,
          updatedAt: now,
          feedTokenVersion,
          linkVersion: linkVersion + 1,
          // What an undo gives back (./undo-unsubscribe.ts); gone with the undo, or replaced by the next opt-out.
          unsubscribedFrom: undoable ? status : FieldValue.delete(),
          ...leavePendingFields(),
          ...channelFields([]),
        },
        result: { result: 'done', current, linkVersion: linkVersion + 1, undoable },
        alongside: (batch) => {
          for (const channel of channels) deleteChannelLinks(batch, db, channel);
        },
      };
    },
    { action: 'unsubscribing' },
  );
}
