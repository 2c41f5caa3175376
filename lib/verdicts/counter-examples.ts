import type { Firestore } from 'firebase-admin/firestore';
import { feedbackCollection } from '../ledger/feedback';

/** What the model is shown of a posting the subscriber marked "not a fit": its words only. */
export type CounterExample = { title: string; description: string };

/** How many a request carries: enough to show a pattern, few enough to cost little (each ≤ 600 characters). */
export const COUNTER_EXAMPLES_PER_REQUEST = 5;

/**
 * The subscriber's latest "not a fit" postings, newest first, as the verdict stage sends them
 * (wire.ts `notAFit`). One query on (uid, createdAt desc) (firestore.indexes.json). Copied field
 * by field: a feedback document's uid and ids never reach the model.
 */
export async function readCounterExamples(db: Firestore, uid: string, limit = COUNTER_EXAMPLES_PER_REQUEST): Promise<CounterExample[]> {
  if (limit <= 0) return [];
  const snap = await feedbackCollection(db).where('uid', '==', uid).orderBy('createdAt', 'desc').limit(limit).get();
  return snap.docs.map((doc) => {
    const { title, description } = doc.data();
    return { title, description };
  });
}
