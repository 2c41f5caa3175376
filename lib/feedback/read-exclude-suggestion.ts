import type { Firestore } from 'firebase-admin/firestore';
import { postingsCollection, type StoredPosting } from '../feeds/postings-collection';
import { deliveriesCollection } from '../ledger/delivery';
import { readMany } from '../store/create-documents';
import { MAX_EXCLUDES } from '../subscribers/preference-fields';
import type { Subscriber } from '../subscribers/subscriber';
import { feedbackCollection } from '../ledger/feedback';
import { MIN_NOT_A_FIT_SHARED, suggestExclude, type ExcludeSuggestion } from './suggest-exclude';

/** M is measured over at most this many of the subscriber's latest deliveries. */
export const RECENT_MATCHES = 50;
/** The "not a fit" postings a suggestion is looked for in, newest first. */
export const NOT_A_FIT_FOR_SUGGESTION = 20;

/**
 * The preferences page's exclude suggestion, read from the store: the subscriber's latest "not a
 * fit" feedback, their latest deliveries (deliveries where uid == …, newest first, on the
 * (uid, createdAt desc) index) and those deliveries' stored postings (jobs/, one getAll). A
 * delivery whose posting has expired is left out of M: what is not stored cannot be measured.
 * At most three reads round trips, and only one while there is too little feedback to suggest from.
 */
export async function readExcludeSuggestion(
  db: Firestore,
  subscriber: Pick<Subscriber, 'id' | 'keywords' | 'excludes'>,
): Promise<ExcludeSuggestion | null> {
  if (subscriber.excludes.length >= MAX_EXCLUDES) return null;
  const feedback = await feedbackCollection(db)
    .where('uid', '==', subscriber.id)
    .orderBy('createdAt', 'desc')
    .limit(NOT_A_FIT_FOR_SUGGESTION)
    .get();
  if (feedback.size < MIN_NOT_A_FIT_SHARED) return null;
  const deliveries = await deliveriesCollection(db)
    .where('uid', '==', subscriber.id)
    .orderBy('createdAt', 'desc')
    .limit(RECENT_MATCHES)
    .get();
  if (deliveries.empty) return null;
  const postings = await readMany(
    db,
    deliveries.docs.map((doc) => postingsCollection(db).doc(doc.data().jobId)),
  );
  return suggestExclude({
    keywords: subscriber.keywords,
    excludes: subscriber.excludes,
    notAFit: feedback.docs.map((doc) => doc.data()),
    recent: postings.map((snap) => snap.data()).filter((posting): posting is StoredPosting => posting !== undefined),
  });
}
