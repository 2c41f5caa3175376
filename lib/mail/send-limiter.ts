import pLimit from 'p-limit';

/**
 * Every request to the provider goes through one limiter: at most `concurrency` in flight and at
 * most `ratePerSec` started per second (Resend's default is 2/s per team, shared by all keys).
 * A 429 pushes the whole limiter back by its Retry-After, because the budget is shared.
 */
export type SendLimiter = {
  /**
   * Runs `task` in its turn. `unless` is asked before waiting for a slot and again once the slot
   * comes: an answer other than null is returned instead, and no request is started or counted
   * (how a run that has hit the provider's quota lets the sends already queued fall through).
   */
  run<T>(task: () => Promise<T>, options?: { unless?: () => T | null }): Promise<T>;
  backOff(ms: number): void;
  requests(): number;
};

/** The share of the provider's rate the limiter starts requests at. */
export const RATE_HEADROOM = 0.95;

export function createSendLimiter(options: {
  ratePerSec: number;
  concurrency: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * A limiter every request must also pass (the process's, shared with request-time sends): this
   * one paces a run at its share, the outer one keeps the whole process under the provider's rate.
   */
  via?: SendLimiter;
}): SendLimiter {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // 5% headroom: requests start evenly spaced here but arrive with jitter, and a provider that
  // counts per second would otherwise see the odd third request inside one window and answer 429.
  // At 2/s that is 526 ms between starts, so two starts can drift 52 ms closer and still fall in
  // different windows; more headroom would only idle the provider budget the issue asks us to use.
  const spacingMs = 1000 / (options.ratePerSec * RATE_HEADROOM);
  const limit = pLimit(options.concurrency);
  let nextStart = 0;
  let started = 0;

  // Reserve the slot before sleeping so concurrent callers queue behind each other, not on top.
  const waitForSlot = async () => {
    const at = Math.max(now(), nextStart);
    nextStart = at + spacingMs;
    const wait = at - now();
    if (wait > 0) await sleep(wait);
  };

  return {
    run: (task, { unless } = {}) =>
      limit(async () => {
        const before = unless?.() ?? null;
        if (before !== null) return before;
        await waitForSlot();
        const after = unless?.() ?? null;
        if (after !== null) return after;
        const start = () => {
          started += 1;
          return task();
        };
        return options.via ? options.via.run(start, { unless }) : start();
      }),
    backOff(ms) {
      nextStart = Math.max(nextStart, now() + ms);
      // The provider's budget is the process's: a 429 to a run holds back request-time sends too.
      options.via?.backOff(ms);
    },
    requests: () => started,
  };
}
