const WINDOW_MS = 1000;
/**
 * With no limit configured the sink enforces nothing, but clients still get numeric
 * ratelimit-* headers (a header cannot say "infinity"); this ceiling reads as "plenty".
 */
export const UNLIMITED_NOMINAL = 1000;

export type RateVerdict = { allowed: boolean; headers: Record<string, string> };

/**
 * A fixed 1-second window per API key, opened by the first request in it. Refused requests do
 * not count, so a client that honours retry-after gets exactly `limit` requests per window.
 */
export function createRateLimiter(now: () => number) {
  const windows = new Map<string, { start: number; count: number }>();
  // What the provider saw of each key: a client's own count of its requests cannot tell a 429 from a send.
  const tallies = new Map<string, RequestTally>();
  const tallyOf = (apiKey: string) => tallies.get(apiKey) ?? tallies.set(apiKey, { admitted: 0, refused: 0 }).get(apiKey)!;

  function take(apiKey: string, limit: number | undefined): RateVerdict {
    const at = now();
    let window = windows.get(apiKey);
    if (!window || at - window.start >= WINDOW_MS || at < window.start) {
      window = { start: at, count: 0 };
      windows.set(apiKey, window);
    }
    const ceiling = limit ?? UNLIMITED_NOMINAL;
    const resetSeconds = String(Math.max(1, Math.ceil((window.start + WINDOW_MS - at) / 1000)));
    if (limit !== undefined && window.count >= limit) {
      tallyOf(apiKey).refused += 1;
      return {
        allowed: false,
        headers: {
          'ratelimit-limit': String(ceiling),
          'ratelimit-remaining': '0',
          'ratelimit-reset': resetSeconds,
          'retry-after': resetSeconds,
        },
      };
    }
    window.count += 1;
    tallyOf(apiKey).admitted += 1;
    const remaining = Math.max(0, ceiling - window.count);
    return {
      allowed: true,
      headers: { 'ratelimit-limit': String(ceiling), 'ratelimit-remaining': String(remaining), 'ratelimit-reset': resetSeconds },
    };
  }

  return { take, tally: (apiKey: string): RequestTally => ({ ...tallyOf(apiKey) }) };
}

/** API requests a key made: admitted past the rate limit, and refused by it (429). */
export type RequestTally = { admitted: number; refused: number };

export type RateLimiter = ReturnType<typeof createRateLimiter>;
