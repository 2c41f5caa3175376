/**
 * How long to wait before attempt `attempt + 1`: the provider's Retry-After when it gave one
 * (it knows better than any curve), otherwise exponential backoff with full jitter, capped.
 */
export function retryDelayMs(input: {
  attempt: number;
  retryAfterMs: number | null;
  random?: () => number;
  baseMs?: number;
  capMs?: number;
}): number {
  if (input.retryAfterMs !== null) return input.retryAfterMs;
  const base = input.baseMs ?? 500;
  const cap = input.capMs ?? 30_000;
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, input.attempt - 1));
  return Math.floor((input.random ?? Math.random)() * ceiling);
}
