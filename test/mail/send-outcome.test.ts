import { afterEach, describe, expect, it, vi } from 'vitest';
import { classifyProviderError, parseRetryAfter } from '../../lib/mail/send-outcome';
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
  ])('%o → %o', (error, headers, expected) => {
    expect(classifyProviderError(error, headers)).toMatchObject(expected);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter('soon')).toBeNull();
  });
});

describe('retry delay', () => {
  it('honours Retry-After, otherwise full jitter under an exponential, capped ceiling', () => {
    expect(retryDelayMs({ attempt: 3, retryAfterMs: 1234 })).toBe(1234);
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

  it('a 429 pushes every later request back by its Retry-After', async () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = createSendLimiter({ ratePerSec: 100, concurrency: 1 });
    await limiter.run(async () => limiter.backOff(3_000));
    const second = limiter.run(async () => Date.now());
    await vi.runAllTimersAsync();
    expect(await second).toBeGreaterThanOrEqual(3_000);
  });
});
