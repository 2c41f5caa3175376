import { FieldValue, type Firestore } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../store/collections';
import { addDays, utcDay } from '../store/timestamps';
import type { VerdictUsage } from './ask-verdicts';

/**
 * aiUsage/{YYYY-MM-DD}: the model tokens every run used on one UTC day, against
 * AI_DAILY_TOKEN_BUDGET. Each call adds what the server reported (or the estimate, when it
 * reported none) with FieldValue.increment, so concurrent runs never lose each other's counts;
 * the budget is read before each call. One small document a day, with `expireAt` for the TTL.
 */
export type AiUsageDay = {
  day: string;
  tokens: number;
  promptTokens: number;
  completionTokens: number;
  calls: number;
  updatedAt: Date;
  expireAt: Date;
};

/** Per run: calls made so far, against AI_MAX_CALLS_PER_RUN. Shared by every scoreOnce of the run. */
export type RunModelUsage = { calls: number; tokens: number };

export const newRunModelUsage = (): RunModelUsage => ({ calls: 0, tokens: 0 });

export const aiUsageRef = (db: Firestore, day: string) => db.collection(COLLECTIONS.aiUsage).doc(day);

/** Tokens used so far on `now`'s UTC day, by every run. */
export async function readTokensUsedToday(db: Firestore, now: Date): Promise<number> {
  const snap = await aiUsageRef(db, utcDay(now)).get();
  const tokens: unknown = snap.get('tokens');
  return typeof tokens === 'number' ? tokens : 0;
}

/**
 * Adds the usage of the calls that reported some (a 200 whose answer was unusable still costs its
 * tokens) to the day's total, one increment for a group of calls.
 */
export async function recordModelUsage(
  db: Firestore,
  input: { now: Date; retentionDays: number; usages: readonly (VerdictUsage | undefined)[] },
): Promise<void> {
  const prompt = input.usages.reduce((sum, u) => sum + (u?.promptTokens ?? 0), 0);
  const completion = input.usages.reduce((sum, u) => sum + (u?.completionTokens ?? 0), 0);
  const day = utcDay(input.now);
  await aiUsageRef(db, day).set(
    {
      day,
      tokens: FieldValue.increment(prompt + completion),
      promptTokens: FieldValue.increment(prompt),
      completionTokens: FieldValue.increment(completion),
      calls: FieldValue.increment(input.usages.length),
      updatedAt: input.now,
      expireAt: addDays(input.now, input.retentionDays),
    },
    { merge: true },
  );
}
