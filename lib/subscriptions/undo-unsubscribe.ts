import { FieldValue, type DocumentSnapshot, type Firestore } from 'firebase-admin/firestore';
import { guardedSubscriberUpdate } from '../subscribers/subscriber-writes';
import { isCurrentLink, LINK_LIFETIME_DAYS, verifyLinkToken, type LinkClaims, type TokenCheck } from '../subscribers/link-token';
import { subscribersCollection, type Subscriber, type SubscriberStatus } from '../subscribers/subscriber';

/** How long "Undo" works after unsubscribing: the undo link's lifetime, from the unsubscribe. */
export const UNDO_WINDOW_DAYS = LINK_LIFETIME_DAYS.undo;

/**
 * Why an undo link gives nothing back, beyond the token's own faults (`expired`: past its window):
 * - `stale`: the subscriber's links moved on since that unsubscribe (they unsubscribed again, signed
 *   up again, or revoked their links), so this undo belongs to an opt-out that is no longer the last word.
 * - `not-undoable`: the unsubscribe ended a signup that was never confirmed; only a confirmation starts one.
 */
export type UndoFailure = Extract<TokenCheck, { ok: false }>['reason'] | 'unknown-subscriber' | 'stale' | 'not-undoable';

export type UndoResult = { ok: true; status: SubscriberStatus; alreadyUndone: boolean } | { ok: false; reason: UndoFailure };

/** What an undo link may do with the subscriber as read: give back the state its own unsubscribe ended. */
export function decideUndo(
  claims: LinkClaims,
  stored: { status: SubscriberStatus; linkVersion?: number; unsubscribedFrom?: unknown } | undefined,
): { kind: 'restore'; to: 'active' | 'paused' } | { kind: 'done'; result: UndoResult } {
  if (!stored) return { kind: 'done', result: { ok: false, reason: 'unknown-subscriber' } };
  // Every unsubscribe bumps linkVersion, and so does a re-signup: a link of another version undoes nothing.
  if (!isCurrentLink(claims, stored)) return { kind: 'done', result: { ok: false, reason: 'stale' } };
  if (stored.status !== 'unsubscribed') return { kind: 'done', result: { ok: true, status: stored.status, alreadyUndone: true } };
  const from = stored.unsubscribedFrom;
  if (from !== 'active' && from !== 'paused') return { kind: 'done', result: { ok: false, reason: 'not-undoable' } };
  return { kind: 'restore', to: from };
}

/** The subscriber with what their last unsubscribe ended (a field the converter does not carry). */
const storedOf = (snap: DocumentSnapshot<Subscriber>) => {
  const subscriber = snap.data();
  return subscriber ? { ...subscriber, unsubscribedFrom: snap.get('unsubscribedFrom') as unknown } : undefined;
};

/** GET /unsubscribe/undo: what a POST would do, read only (mail scanners and link previews open links). */
export async function checkUndoLink(
  db: Firestore,
  input: { token: string | null | undefined; secret: string; now: Date },
): Promise<UndoResult> {
  const check = verifyLinkToken(input.token, { secret: input.secret, purpose: 'undo', now: input.now });
  if (!check.ok) return { ok: false, reason: check.reason };
  const decision = decideUndo(check.claims, storedOf(await subscribersCollection(db).doc(check.claims.uid).get()));
  return decision.kind === 'done' ? decision.result : { ok: true, status: 'unsubscribed', alreadyUndone: false };
}

/**
 * Gives back the subscription an unsubscribe ended, from the undo link its page showed. The
 * database referees: an update guarded by the version read (never a create, so a deleted
 * subscriber stays deleted), decided on that version by `decideUndo`. Of N undos at once exactly
 * one restores; the others decide again on the restored version and find nothing to undo. The
 * link version stays as the unsubscribe left it: links emailed before the unsubscribe stay dead
 * (the next email brings current ones), the private feed URL too, and queued postings that the
 * unsubscribe dropped are not revived.
 */
export async function undoUnsubscribe(
  db: Firestore,
  input: { token: string | null | undefined; secret: string; now: Date },
): Promise<UndoResult> {
  const check = verifyLinkToken(input.token, { secret: input.secret, purpose: 'undo', now: input.now });
  if (!check.ok) return { ok: false, reason: check.reason };
  const { claims } = check;
  return guardedSubscriberUpdate<UndoResult>(
    subscribersCollection(db).doc(claims.uid),
    (snap) => {
      if (!snap.exists || !snap.updateTime) return { done: { ok: false, reason: 'unknown-subscriber' } };
      const decision = decideUndo(claims, storedOf(snap));
      if (decision.kind === 'done') return { done: decision.result };
      return {
        update: { status: decision.to, updatedAt: input.now, unsubscribedFrom: FieldValue.delete() },
        result: { ok: true, status: decision.to, alreadyUndone: false },
      };
    },
    { action: 'undoing their unsubscribe' },
  );
}
