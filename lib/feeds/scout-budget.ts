import { z } from 'zod';
import { MAX_PAY_AMOUNT, statedPay } from '../pay/parse-pay';
import { PAY_KINDS, type Budget } from '../pay/pay';

const scoutBudgetSchema = z.object({
  amount: z.number().positive().max(MAX_PAY_AMOUNT),
  maxAmount: z.number().positive().max(MAX_PAY_AMOUNT).optional(),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/)
    .optional(),
  kind: z.enum(PAY_KINDS).optional(),
});

/**
 * The JSON Feed extension `_scout.budget` (docs/sources.md): Scout's own field, so its documented
 * defaults (USD, fixed) are the feed's statement, not a guess. Anything malformed is ignored.
 */
export function parseScoutBudget(extension: unknown): Budget | null {
  if (typeof extension !== 'object' || extension === null) return null;
  const parsed = scoutBudgetSchema.safeParse((extension as { budget?: unknown }).budget);
  if (!parsed.success) return null;
  const { amount, maxAmount, currency, kind } = parsed.data;
  return statedPay({ min: amount, max: maxAmount, currency: currency ?? 'USD', period: kind ?? 'fixed' });
}
