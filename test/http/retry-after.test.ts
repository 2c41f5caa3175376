import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../lib/http/retry-after';
import { parseRetryAfter as boardRetryAfter } from '../../lib/feeds/source-http';
import { parseRetryAfter as modelRetryAfter } from '../../lib/verdicts/retry-after';

/** One reading of Retry-After for the provider, the model server and the boards; each keeps only its own policy. */
const NOW = Date.parse('2026-12-06T08:00:00Z');

describe('Retry-After, read one way everywhere', () => {
  it('seconds (decimals too) or an HTTP date; a past date is 0; anything else is no advice', () => {
    expect(retryAfterMs('3', NOW)).toBe(3_000);
    expect(retryAfterMs(' 0.5 ', NOW)).toBe(500);
    expect(retryAfterMs('Sun, 06 Dec 2026 08:00:30 GMT', NOW)).toBe(30_000);
    expect(retryAfterMs('Sun, 06 Dec 2026 07:00:00 GMT', NOW)).toBe(0);
    for (const unreadable of ['soon', '-5', '1e3', '', '   ', null, undefined]) expect(retryAfterMs(unreadable, NOW)).toBeNull();
  });

  it('the model server’s retry-after-ms comes first; the boards wait whole seconds, at most a day, and never 0', () => {
    expect(modelRetryAfter(new Headers({ 'retry-after-ms': '250.4', 'retry-after': '9' }), NOW)).toBe(251);
    expect(modelRetryAfter(new Headers({ 'retry-after': '0.5' }), NOW)).toBe(500);
    expect(boardRetryAfter('0.5', NOW)).toBe(1);
    expect(boardRetryAfter('999999', NOW)).toBe(86_400);
    expect(boardRetryAfter('Sun, 06 Dec 2026 07:00:00 GMT', NOW)).toBeUndefined();
    expect(boardRetryAfter('0', NOW)).toBeUndefined();
  });
});
