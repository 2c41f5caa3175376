import { retryAfterMs } from '../http/retry-after';

/**
 * Every provider answer falls in one of these, and the outbox decides per email kind what each
 * allows (docs/design.md §2.3–2.4):
 * - accepted: the provider took it.
 * - refused: the provider definitely did not send it (429, validation error); `retryable` says
 *   whether trying again can help.
 * - ambiguous: it may or may not have been sent (timeout, connection lost, 5xx).
 * - key-conflict: the Idempotency-Key is in flight elsewhere (`concurrent`) or was used with a
 *   different body (`mismatch`, a bug: never resend under a new key).
 * - quota: the team's daily or monthly email quota is used up. Also a 429, but told apart from a
 *   rate limit by the error's name: waiting seconds does not help, and no email was sent.
 */
export type SendOutcome =
  | { kind: 'accepted'; providerId: string }
  | { kind: 'refused'; retryable: boolean; status: number; error: string; retryAfterMs: number | null }
  | { kind: 'ambiguous'; status: number | null; error: string }
  | { kind: 'key-conflict'; reason: 'concurrent' | 'mismatch'; error: string }
  | QuotaOutcome;

export type QuotaPeriod = 'daily' | 'monthly';
export type QuotaOutcome = { kind: 'quota'; period: QuotaPeriod; status: number | null; error: string; retryAfterMs: number | null };

/** Resend's error names for a used-up quota (its Usage Limits page); `rate_limit_exceeded` is the other 429. */
const QUOTA_ERRORS: Record<string, QuotaPeriod> = { daily_quota_exceeded: 'daily', monthly_quota_exceeded: 'monthly' };

type ProviderError = { statusCode?: number | null; name?: string; message?: string };

export function classifyProviderError(error: ProviderError, headers: Record<string, string> | null): SendOutcome {
  const status = typeof error.statusCode === 'number' ? error.statusCode : null;
  const description = `${status ?? 'network'} ${error.name ?? 'error'}: ${error.message ?? ''}`.trim().slice(0, 500);
  const period = error.name ? QUOTA_ERRORS[error.name] : undefined;
  if (period) return { kind: 'quota', period, status, error: description, retryAfterMs: retryAfterMs(headers?.['retry-after']) };
  if (error.name === 'concurrent_idempotent_requests') return { kind: 'key-conflict', reason: 'concurrent', error: description };
  if (error.name === 'invalid_idempotent_request') return { kind: 'key-conflict', reason: 'mismatch', error: description };
  if (status === null) return { kind: 'ambiguous', status, error: description };
  if (status === 429)
    return { kind: 'refused', retryable: true, status, error: description, retryAfterMs: retryAfterMs(headers?.['retry-after']) };
  if (status >= 400 && status < 500) return { kind: 'refused', retryable: false, status, error: description, retryAfterMs: null };
  return { kind: 'ambiguous', status, error: description };
}

/**
 * When a used-up quota should let email through again: the provider's Retry-After when it gave a
 * usable one, otherwise the next 00:00 UTC for a daily quota and the first of next month (UTC)
 * for a monthly one. An estimate for the operator: every run still tries once, so a quota raised
 * by hand (a plan upgrade) is noticed by the next run.
 */
export function quotaResumesAt(input: { period: QuotaPeriod; at: Date; retryAfterMs: number | null }): Date {
  if (input.retryAfterMs !== null && input.retryAfterMs > 0) return new Date(input.at.getTime() + input.retryAfterMs);
  const y = input.at.getUTCFullYear();
  const m = input.at.getUTCMonth();
  return new Date(input.period === 'daily' ? Date.UTC(y, m, input.at.getUTCDate() + 1) : Date.UTC(y, m + 1, 1));
}
