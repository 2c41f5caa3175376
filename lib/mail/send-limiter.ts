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

/** Provider requests in flight: two keep Resend's 2 requests a second going while an answer takes up to a second. */
export const SEND_CONCURRENCY = 2;

/** The share of the provider's rate the limiter starts requests at. */
export const RATE_HEADROOM = 0.95;
/**
 * Shared slots (see `slots`): any perWindow + 1 starts of all senders together span a second and
 * this much, of which a start may use SLOT_LATENESS_MS by waking late and the rest is left for
 * network delays that differ from machine to machine (a loaded 2-core bench machine measured 429s
 * at a 52 ms margin). At 2/s that is a slot every 600 ms, 1.67 requests a second.
 */
export const SLOT_MARGIN_MS = 200;
const SLOT_LATENESS_MS = 50;

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
  /**
   * This sender's share of a provider budget that other machines spend too (the cron's shards):
   * time is one grid of slots, 1/rate apart from the Unix epoch, and sender `index` of `count`
   * starts requests only in the slots numbered `index` modulo `count`. Senders that never talk to
   * each other then never start two requests in one slot, so together they stay inside the rate
   * as one sender would, with nothing to coordinate through and nothing that can fail. `now` must
   * be the wall clock (machines agree on it to a few milliseconds, which the lateness bound allows).
   */
  slots?: { index: number; count: number };
}): SendLimiter {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // 5% headroom: requests start evenly spaced here but arrive with jitter, and a provider that
  // counts per second would otherwise see the odd third request inside one window and answer 429.
  // At 2/s that is 526 ms between starts, so two starts can drift 52 ms closer and still fall in
  // different windows; more headroom would only idle the provider budget the issue asks us to use.
  const perWindow = Math.max(1, Math.floor(options.ratePerSec));
  // Senders on other machines sharing the rate (slots) cannot see each other's late starts, and
  // their requests reach the provider with different delays, so their grid leaves a wider margin:
  // any perWindow + 1 starts span at least a second and SLOT_MARGIN_MS.
  const spacingMs = Math.max(1000 / (options.ratePerSec * RATE_HEADROOM), options.slots ? (1000 + SLOT_MARGIN_MS) / perWindow : 0);
  const limit = pLimit(options.concurrency);
  let nextStart = 0;
  let started = 0;
  // The slots are a grid, so a start that came late (the event loop busy rendering or committing)
  // is followed by ones on time, and the provider, whose window opens on its first request, can
  // then see one more than its rate inside a second and answer 429, which costs a whole
  // Retry-After. So besides the grid, no request starts until the one `perWindow` before it
  // actually started a headroom window ago: no window of the provider's holds more than its rate.
  const windowMs = perWindow * spacingMs;
  const recentStarts: number[] = [];

  // With shared slots a start may come this late into its slot and no later; the rest of the
  // margin is for the requests' different delays on the way and the machines' clocks disagreeing.
  const slotLatenessMs = SLOT_LATENESS_MS;
  const ownedSlotFrom = (at: number) => {
    const { index, count } = options.slots!;
    const slot = Math.ceil(at / spacingMs - 1e-9);
    return slot + ((((index - slot) % count) + count) % count);
  };

  // Reserve the slot before sleeping so concurrent callers queue behind each other, not on top.
  const waitForSlot = async () => {
    if (options.slots) {
      for (;;) {
        const slot = ownedSlotFrom(Math.max(now(), nextStart));
        const at = slot * spacingMs;
        nextStart = at + spacingMs;
        const wait = at - now();
        if (wait > 0) await sleep(wait);
        // Woken too late for this slot: it may now lie too close to another sender's next one.
        // On time, the grid alone keeps every window within the rate (the check below would only
        // push the start off its slot).
        if (now() - at <= slotLatenessMs) return;
      }
    } else {
      const at = Math.max(now(), nextStart);
      nextStart = at + spacingMs;
      const wait = at - now();
      if (wait > 0) await sleep(wait);
    }
    for (;;) {
      const behind = recentStarts.length >= perWindow ? recentStarts[recentStarts.length - perWindow] + windowMs - now() : 0;
      if (behind <= 0) return;
      await sleep(Math.ceil(behind));
    }
  };
  const recordStart = () => {
    recentStarts.push(now());
    if (recentStarts.length > perWindow) recentStarts.shift();
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
          recordStart();
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
