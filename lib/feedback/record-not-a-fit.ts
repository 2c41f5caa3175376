import type { DocumentReference, DocumentSnapshot, Firestore } from 'firebase-admin/firestore';
import { postingsCollection, type StoredPosting } from '../feeds/postings-collection';
import { isAlreadyExists } from '../store/firestore-errors';
import { subscribersCollection, type Subscriber, type SubscriberStatus } from '../subscribers/subscriber';
import { feedbackRef, notAFitFeedback, type Feedback } from '../ledger/feedback';

/**
 * "Not a fit" from a signed link: what the page may show (`readNotAFit` + `decideNotAFit`, for
 * GET, which records nothing) and the one write (`recordNotAFit`, for POST).
 */

/** Who may give feedback: confirmed subscribers, paused or not (the same people who may change preferences). */
export const FEEDBACK_STATUSES: readonly SubscriberStatus[] = ['active', 'paused'];

export type NotAFitState = {
  subscriber: Subscriber | undefined;
  posting: StoredPosting | undefined;
  feedback: Feedback | undefined;
  /** The `linkVersion` the link was signed with (absent = 0): one the subscriber has moved past records nothing. */
  linkVersion?: number;
};

export type NotAFitDecision =
  | { kind: 'ask'; subscriber: Subscriber; posting: StoredPosting }
  | { kind: 'already'; subscriber: Subscriber; feedback: Feedback }
  | { kind: 'unknown-subscriber' }
  /** The link is of an older `linkVersion`: sent before an unsubscribe, a re-signup or "Revoke my links". */
  | { kind: 'link-revoked' }
  | { kind: 'not-subscribed'; status: SubscriberStatus }
  /**
   * The posting is no longer stored (jobs/ expire RETENTION_DAYS after their fetch) and was never
   * marked. Nothing is recorded: the link names only its id, and a counter-example or a suggestion
   * needs the posting's words, which are gone.
   */
  | { kind: 'unknown-posting' };

/** Subscriber, posting and any feedback already given: one getAll. */
export async function readNotAFit(db: Firestore, input: { uid: string; jobId: string; linkVersion?: number }): Promise<NotAFitState> {
  const subscriberRef = subscribersCollection(db).doc(input.uid);
  const postingRef = postingsCollection(db).doc(input.jobId);
  const ref = feedbackRef(db, input.uid, input.jobId);
  // getAll answers in the order asked; each snapshot reads through its own reference's converter.
  const [subscriber, posting, feedback] = (await db.getAll(...([subscriberRef, postingRef, ref] as DocumentReference[]))) as [
    DocumentSnapshot<Subscriber>,
    DocumentSnapshot<StoredPosting>,
    DocumentSnapshot<Feedback>,
  ];
  return { subscriber: subscriber.data(), posting: posting.data(), feedback: feedback.data(), linkVersion: input.linkVersion };
}

/** What a link leads to, in order: a subscriber who is gone or out of Scout comes before anything about the posting. */
export function decideNotAFit(state: NotAFitState): NotAFitDecision {
  const { subscriber, posting, feedback } = state;
  if (!subscriber) return { kind: 'unknown-subscriber' };
  if ((state.linkVersion ?? 0) !== (subscriber.linkVersion ?? 0)) return { kind: 'link-revoked' };
  if (!FEEDBACK_STATUSES.includes(subscriber.status)) return { kind: 'not-subscribed', status: subscriber.status };
  if (feedback) return { kind: 'already', subscriber, feedback };
  if (!posting) return { kind: 'unknown-posting' };
  return { kind: 'ask', subscriber, posting };
}

export type RecordNotAFitResult =
  | { ok: true; alreadyRecorded: boolean; subscriber: Subscriber; feedback: Feedback }
  | { ok: false; decision: Exclude<NotAFitDecision, { kind: 'ask' | 'already' }> };

/**
 * Records the feedback once. The check is the write: create() on the pair's id, so of any number
 * of clicks at once exactly one writes and every other finds it and answers the same. A subscriber
 * who is gone, unsubscribed or pending gets nothing recorded; one who unsubscribes in the same
 * instant may still get this one document, which nothing reads for them and which expires.
 */
export async function recordNotAFit(
  db: Firestore,
  input: { uid: string; jobId: string; linkVersion?: number; now: Date; retentionDays: number },
): Promise<RecordNotAFitResult> {
  const decision = decideNotAFit(await readNotAFit(db, input));
  if (decision.kind === 'already') return { ok: true, alreadyRecorded: true, subscriber: decision.subscriber, feedback: decision.feedback };
  if (decision.kind !== 'ask') return { ok: false, decision };
  const feedback = notAFitFeedback({ uid: input.uid, posting: decision.posting, now: input.now, retentionDays: input.retentionDays });
  try {
    await feedbackRef(db, input.uid, input.jobId).create(feedback);
    return { ok: true, alreadyRecorded: false, subscriber: decision.subscriber, feedback };
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  // Another click won the create: its document is the record (the same posting, a moment apart).
  const stored = (await feedbackRef(db, input.uid, input.jobId).get()).data();
  return { ok: true, alreadyRecorded: true, subscriber: decision.subscriber, feedback: stored ?? feedback };
}
