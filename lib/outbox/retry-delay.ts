/**
 * How long to wait before attempt `attempt + 1`: the provider's Retry-After when it gave one
 * (it knows better than any curve), otherwise exponential backoff with full jitter, capped.
 * Retry-After is a floor, never waited less; up to a second more at random, so callers refused in
 * the same second (shards sharing one rate limit) do not all come back in the same second again.
 */
const RETRY_AFTER_JITTER_MS = 1_000;

export function retryDelayMs(input: {
  attempt: number;
  retryAfterMs: number | null;
  random?: () => number;
  baseMs?: number;
  capMs?: number;
}): number {
  const random = input.random ?? Math.random;
  if (input.retryAfterMs !== null) return input.retryAfterMs + Math.floor(random() * Math.min(input.retryAfterMs, RETRY_AFTER_JITTER_MS));
  const base = input.baseMs ?? 500;
  const cap = input.capMs ?? 30_000;
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, input.attempt - 1));
  return Math.floor(random() * ceiling);
}
