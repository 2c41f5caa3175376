import { describe, expect, it } from 'vitest';
import { createSendLimiter, SLOT_MARGIN_MS } from '../../lib/mail/send-limiter';

/**
 * The cron's shards run on separate machines and share one provider rate (Resend counts per team).
 * Each shard starting at its share of the rate is not enough: four shards at 0.5/s each may all
 * start in the same second, and the provider answers the third with 429 and a Retry-After. The
 * shards share nothing but the wall clock, so the slots are cut from it.
 */

/** One wall clock for every shard, with each sleeper waking at its time, some of them late. */
function sharedClock(start: number, lateness: (wake: number) => number) {
  let t = start;
  const sleepers: { at: number; wake: () => void }[] = [];
  let wakes = 0;
  // Sleepers wake in time order; time jumps to the earliest once every shard is waiting.
  const drive = async () => {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (sleepers.length === 0) return;
      sleepers.sort((a, b) => a.at - b.at);
      const next = sleepers.shift()!;
      t = Math.max(t, next.at + lateness(++wakes));
      next.wake();
    }
  };
  return {
    now: () => t,
    sleep: (ms: number) => new Promise<void>((wake) => sleepers.push({ at: t + ms, wake })),
    drive,
  };
}

async function fourShards(input: { slots: boolean; lateness: (wake: number) => number; rate?: number }) {
  const rate = input.rate ?? 2;
  const clock = sharedClock(Date.parse('2026-11-30T06:00:00.123Z'), input.lateness);
  const starts: { shard: number; at: number }[] = [];
  const shards = Array.from({ length: 4 }, (_, index) =>
    createSendLimiter(
      input.slots
        ? { ratePerSec: rate, concurrency: 2, now: clock.now, sleep: clock.sleep, slots: { index, count: 4 } }
        : { ratePerSec: rate / 4, concurrency: 2, now: clock.now, sleep: clock.sleep },
    ),
  );
  const all = Promise.all(
    shards.flatMap((limiter, shard) =>
      Array.from({ length: 12 }, () => limiter.run(async () => void starts.push({ shard, at: clock.now() }))),
    ),
  );
  await Promise.all([all, clock.drive()]);
  return starts.map((s) => s.at).sort((a, b) => a - b);
}

/** The most requests any one-second window holds (the provider's window opens on any request). */
function busiestSecond(starts: number[]): number {
  let most = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (starts[i] - starts[j] >= 1_000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('shards that share the provider', () => {
  it('four shards each at a quarter of the rate do start more than the rate in one second (why shares are not enough)', async () => {
    const starts = await fourShards({ slots: false, lateness: () => 0 });
    expect(starts).toHaveLength(48);
    expect(busiestSecond(starts)).toBeGreaterThan(2);
  });

  it('four shards in their own slots of one grid: no second holds more than the rate, with wake-ups late by up to 200 ms', async () => {
    const lateness = (wake: number) => [0, 3, 0, 12, 0, 200, 5, 0][wake % 8];
    const starts = await fourShards({ slots: true, lateness });
    expect(starts).toHaveLength(48);
    expect(busiestSecond(starts)).toBeLessThanOrEqual(2);
    // And the rate is used: a slot every 600 ms (two slots span a second and the margin), plus a
    // turn of its shard (4 slots) for each wake-up too late for its slot, one in eight here
    // (measured: 1.53× the ideal 28.2 s).
    const spacing = (1_000 + SLOT_MARGIN_MS) / 2;
    expect(starts[47] - starts[0]).toBeLessThanOrEqual(47 * spacing * 1.6);
  });

  it.each([1, 5, 10])('at %i requests a second too: never more than the rate in any second', async (rate) => {
    const starts = await fourShards({ slots: true, rate, lateness: (wake) => (wake % 5 === 0 ? 15 : 0) });
    expect(starts).toHaveLength(48);
    expect(busiestSecond(starts)).toBeLessThanOrEqual(rate);
  });
});
