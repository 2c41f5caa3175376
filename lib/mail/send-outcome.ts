/**
 * Every provider answer falls in one of these, and the outbox decides per email kind what each
 * allows (DESIGN §2.3–2.4):
 * - accepted: the provider took it.
 * - refused: the provider definitely did not send it (429, validation error); `retryable` says
 *   whether trying again can help.
 * - ambiguous: it may or may not have been sent (timeout, connection lost, 5xx).
 * - key-conflict: the Idempotency-Key is in flight elsewhere (`concurrent`) or was used with a
 *   different body (`mismatch`, a bug: never resend under a new key).
 */
export type SendOutcome =
  | { kind: 'accepted'; providerId: string }
  | { kind: 'refused'; retryable: boolean; status: number; error: string; retryAfterMs: number | null }
  | { kind: 'ambiguous'; status: number | null; error: string }
  | { kind: 'key-conflict'; reason: 'concurrent' | 'mismatch'; error: string };

type ProviderError = { statusCode?: number | null; name?: string; message?: string };

export function classifyProviderError(error: ProviderError, headers: Record<string, string> | null): SendOutcome {
  const status = typeof error.statusCode === 'number' ? error.statusCode : null;
  const description = `${status ?? 'network'} ${error.name ?? 'error'}: ${error.message ?? ''}`.trim().slice(0, 500);
  if (error.name === 'concurrent_idempotent_requests') return { kind: 'key-conflict', reason: 'concurrent', error: description };
  if (error.name === 'invalid_idempotent_request') return { kind: 'key-conflict', reason: 'mismatch', error: description };
  if (status === null) return { kind: 'ambiguous', status, error: description };
  if (status === 429)
    return { kind: 'refused', retryable: true, status, error: description, retryAfterMs: parseRetryAfter(headers?.['retry-after']) };
  if (status >= 400 && status < 500) return { kind: 'refused', retryable: false, status, error: description, retryAfterMs: null };
  return { kind: 'ambiguous', status, error: description };
}

/** Retry-After is seconds or an HTTP date; anything else means "no advice". */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
