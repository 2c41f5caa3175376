import type { Mailer } from '../../lib/mail/mailer';
import { createSendLimiter, SEND_CONCURRENCY } from '../../lib/mail/send-limiter';
import type { AppDeps } from '../../lib/wiring/app-deps';

/**
 * A clock that only sleeping (or the test) moves: each sleeper wakes at the time it asked for, so
 * the limiter's slots are the instants sends start at, without a test waiting on the wall clock.
 * `advanceTo` moves it to a later instant (a request arriving then); it never goes back.
 */
export function virtualClock(start = Date.parse('2026-11-30T06:00:00Z')) {
  let t = start;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      const target = t + ms;
      await Promise.resolve();
      t = Math.max(t, target);
    },
    advanceTo: (at: number) => {
      t = Math.max(t, at);
    },
  };
}

/**
 * The harness's dependencies on a virtual clock, with the process's send limiter on it too, and the
 * start of every provider request recorded. `holdSends` keeps every request from starting until it
 * resolves, so a test can gather every signup at the limiter before time moves.
 */
export function onVirtualTime(deps: AppDeps, options: { holdSends?: () => Promise<void>; start?: number } = {}) {
  const clock = virtualClock(options.start);
  const starts: number[] = [];
  let gate: Promise<void> | undefined;
  const start = async () => {
    if (options.holdSends) await (gate ??= options.holdSends());
    starts.push(clock.now());
  };
  const mailer: Mailer = {
    send: async (payload, o) => (await start(), deps.mailer.send(payload, o)),
    sendBatch: async (payloads, o) => (await start(), deps.mailer.sendBatch(payloads, o)),
  };
  const sendLimiter = createSendLimiter({
    ratePerSec: deps.config.SEND_RATE_PER_SEC,
    concurrency: deps.config.tuning?.SEND_CONCURRENCY ?? SEND_CONCURRENCY,
    now: clock.now,
    sleep: clock.sleep,
  });
  return { deps: { ...deps, mailer, wallClock: clock.now, sleep: clock.sleep, sendLimiter }, starts, clock };
}
