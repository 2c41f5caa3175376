import type { Firestore } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../../lib/store/collections';

/** What one model-on bench run used: the fake's request count per run, and Scout's aiUsage sums. */
export type ModelUsage = {
  /** Counted by the model fake: every request it received, retries and failed ones included. */
  requests: { cycle: number; flush: number };
  /** Summed over aiUsage/{day}. */
  tokens: { total: number; prompt: number; completion: number; calls: number };
};

/**
 * Every aiUsage/{day} document of a project, added up: the tokens the server reported (or Scout's
 * estimate where it reported none), as Scout counts them against AI_DAILY_TOKEN_BUDGET. All days,
 * since which clock names the day (a run's ?now= or the wall clock) is the cycle's business.
 */
export async function sumModelTokens(db: Firestore): Promise<ModelUsage['tokens']> {
  const days = await db.collection(COLLECTIONS.aiUsage).get();
  const sum = (field: string) => days.docs.reduce((total, doc) => total + (Number(doc.get(field)) || 0), 0);
  return { total: sum('tokens'), prompt: sum('promptTokens'), completion: sum('completionTokens'), calls: sum('calls') };
}
