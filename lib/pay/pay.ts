/** The kinds of pay a posting can state: a fixed price for the whole job, or a rate per hour, day, month or year. */
export const PAY_KINDS = ['fixed', 'hourly', 'daily', 'monthly', 'yearly'] as const;
export type PayKind = (typeof PAY_KINDS)[number];

/**
 * What a job pays. `amount` is the lower bound; `maxAmount` the top of a range. `currency` is an
 * ISO 4217 code, or null when the posting states an amount but no currency ("150-250k"): it is
 * never guessed, so such pay is shown but never compared with a minimum.
 */
export type Budget = { amount: number; currency: string | null; kind: PayKind; maxAmount?: number };
