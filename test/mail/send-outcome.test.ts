import { afterEach, describe, expect, it, vi } from 'vitest';
import { classifyProviderError, quotaResumesAt } from '../../lib/mail/send-outcome';
import { retryAfterMs as parseRetryAfter } from '../../lib/http/retry-after';
import { createSendLimiter } from '../../lib/mail/send-limiter';
import { retryDelayMs } from '../../lib/outbox/retry-delay';

describe('classifying provider answers', () => {
  it.each([
    [{ statusCode: 429, name: 'rate_limit_exceeded' }, { 'retry-after': '2' }, { kind: 'refused', retryable: true, retryAfterMs: 2000 }],
    [{ statusCode: 422, name: 'validation_error' }, null, { kind: 'refused', retryable: false }],
    [{ statusCode: 500, name: 'internal_server_error' }, null, { kind: 'ambiguous', status: 500 }],
    [{ statusCode: null, name: 'application_error' }, null, { kind: 'ambiguous', status: null }],
    [{ statusCode: 409, name: 'concurrent_idempotent_requests' }, null, { kind: 'key-conflict', reason: 'concurrent' }],
    [{ statusCode: 409, name: 'invalid_idempotent_request' }, null, { kind: 'key-conflict', reason: 'mismatch' }],
    // Same status as a rate limit; the name tells a used-up quota apart.
    [
      { statusCode: 429, name: 'daily_quota_exceeded' },
      { 'retry-after': '3600' },
      { kind: 'quota', period: 'daily', retryAfterMs: 3_600_000 },
    ],
    [{ statusCode: 429, name: 'monthly_quota_exceeded' }, null, { kind: 'quota', period: 'monthly', retryAfterMs: null }],
  ])('%o → %o', (error, headers, expected) => {
    expect(classifyProviderError(error, headers)).toMatchObject(expected);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter('soon')).toBeNull();
  });
});

describe('when a used-up quota lets email through again', () => {
  it.each([
    ['daily, no Retry-After: the next 00:00 UTC', 'daily', '2026-11-30T18:20:00Z', null, '2026-12-01T00:00:00.000Z'],
    ['daily at the turn of the year', 'daily', '2026-12-31T23:59:59Z', null, '2027-01-01T00:00:00.000Z'],
    ['monthly, no Retry-After: the first of next month', 'monthly', '2026-11-30T18:20:00Z', null, '2026-12-01T00:00:00.000Z'],
    ['monthly in December', 'monthly', '2026-12-02T00:00:00Z', null, '2027-01-01T00:00:00.000Z'],
    ['the provider said when', 'daily', '2026-11-30T18:20:00Z', 7_200_000, '2026-11-30T20:20:00.000Z'],
    ['a Retry-After of 0 says nothing', 'monthly', '2026-11-30T18:20:00Z', 0, '2026-12-01T00:00:00.000Z'],
  ] as const)('%s', (_name, period, at, retryAfterMs, expected) => {
    expect(quotaResumesAt({ period, at: new Date(at), retryAfterMs }).toISOString()).toBe(expected);
  });
});

describe('retry delay', () => {
  it('honours Retry-After, otherwise full jitter under an exponential, capped ceiling', () => {
    expect(retryDelayMs({ attempt: 3, retryAfterMs: 1234, random: () => 0 })).toBe(1234);
    // Never sooner than Retry-After; up to a second later, so callers refused together spread out.
    expect(retryDelayMs({ attempt: 3, retryAfterMs: 1234, random: () => 0.5 })).toBe(1734);
    expect(retryDelayMs({ attempt: 3, retryAfterMs: 400, random: () => 0.999 })).toBeLessThan(800);
    expect(retryDelayMs({ attempt: 1, retryAfterMs: null, random: () => 0.999 })).toBeLessThan(500);
    expect(retryDelayMs({ attempt: 3, retryAfterMs: null, random: () => 0.5 })).toBe(1000);
    expect(retryDelayMs({ attempt: 30, retryAfterMs: null, random: () => 0.999 })).toBeLessThan(30_000);
  });
});

describe('the send limiter', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts at most ratePerSec requests per second and never more than `concurrency` at once', async () => {
    vi.useFakeTimers({ now: 0 });
    const starts: number[] = [];
    let inFlight = 0;
    let peak = 0;
    const limiter = createSendLimiter({ ratePerSec: 2, concurrency: 3 });
    const all = Promise.all(
      Array.from({ length: 6 }, () =>
        limiter.run(async () => {
          starts.push(Date.now());
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          await new Promise((r) => setTimeout(r, 2_000));
          inFlight -= 1;
        }),
      ),
    );
    await vi.runAllTimersAsync();
    await all;
    expect(limiter.requests()).toBe(6);
    expect(peak).toBeLessThanOrEqual(3);
    for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(500);
  });

  it('a start that came late does not let the next ones catch up into one provider window (no third request inside a second)', async () => {
    // One request at a time, on a clock that sleeps exactly, except that the wake-ups named here
    // come late (the event loop was busy rendering or committing).
    let clock = 0;
    let sleeps = 0;
    const lateOn = new Map([
      [2, 300],
      [5, 120],
      [8, 480],
    ]);
    const limiter = createSendLimiter({
      ratePerSec: 2,
      concurrency: 1,
      now: () => clock,
      sleep: async (ms) => {
        sleeps += 1;
        clock += ms + (lateOn.get(sleeps) ?? 0);
      },
    });
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 12 }, () => limiter.run(async () => void starts.push(clock))));
    expect(starts).toHaveLength(12);
    // The provider's window opens on its first request: any three starts must span more than a second.
    for (let i = 2; i < starts.length; i++) expect(starts[i] - starts[i - 2], `starts ${starts.join(', ')}`).toBeGreaterThan(1_000);
    // And the pace is kept: twelve starts 526 ms apart, later only by the lateness.
    expect(starts[11] - starts[0]).toBeLessThanOrEqual(11 * (1000 / 1.9) + 300 + 120 + 480 + 1);
  });

  it('a task whose `unless` answers is not started, not counted, and gets that answer', async () => {
    const limiter = createSendLimiter({ ratePerSec: 1_000, concurrency: 2 });
    let stop = false;
    const sent: number[] = [];
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        limiter.run(
          async () => {
            sent.push(i);
            if (i === 1) stop = true;
            return 'sent';
          },
          { unless: () => (stop ? 'held' : null) },
        ),
      ),
    );
    expect(sent).toEqual([0, 1]);
    expect(results).toEqual(['sent', 'sent', 'held', 'held', 'held']);
    expect(limiter.requests()).toBe(2);
  });

  it('a 429 pushes every later request back by its Retry-After', async () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = createSendLimiter({ ratePerSec: 100, concurrency: 1 });
    await limiter.run(async () => limiter.backOff(3_000));
    const second = limiter.run(async () => Date.now());
    await vi.runAllTimersAsync();
    expect(await second).toBeGreaterThanOrEqual(3_000);
  });
});
