import { describe, expect, it } from 'vitest';
import { dueSlotFor, type DigestSchedule } from '../../lib/subscribers/digest-schedule';
import { deliveryId } from '../../lib/ledger/delivery';
import { alertEmailKey, batchKeyFor, digestEmailKey, manualDigestEmailKey, providerIdempotencyKey } from '../../lib/outbox/outbox-row';
import { subscriberId } from '../../lib/subscribers/subscriber';

describe('keys come from the data, not the run', () => {
  it('a subscriber id is the same for any case or surrounding whitespace', () => {
    expect(subscriberId('  Ada@Example.COM ')).toBe(subscriberId('ada@example.com'));
    expect(subscriberId('ada@example.com')).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('an alert key depends on the set of deliveries, not their order', () => {
    expect(alertEmailKey('u', ['u_b', 'u_a'])).toBe(alertEmailKey('u', ['u_a', 'u_b']));
    expect(alertEmailKey('u', ['u_a'])).not.toBe(alertEmailKey('u', ['u_a', 'u_b']));
    expect(deliveryId('u', 'src_x')).toBe('u_src_x');
    expect(digestEmailKey('u', '2026-11-30')).toBe('digest_u_2026-11-30');
  });

  it("an item queued goes into the next digest not yet claimed: today's until its row exists, then tomorrow's", () => {
    const utc8: DigestSchedule = {
      cadence: 'daily',
      timezone: 'UTC',
      hour: 8,
      weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
      weeklyDay: 'mon',
    };
    const periodOf = (at: string, claimed: boolean) => dueSlotFor(utc8, new Date(at), claimed).period;
    expect(periodOf('2026-11-30T07:59:59Z', false)).toBe('2026-11-30');
    expect(periodOf('2026-11-30T08:01:00Z', false)).toBe('2026-11-30');
    expect(periodOf('2026-11-30T08:01:00Z', true)).toBe('2026-12-01');
    expect(periodOf('2026-12-31T23:00:00Z', true)).toBe('2027-01-01');
  });

  it('the key handed to the provider is a fixed-length digest of the email key: at most 256 characters for any address', () => {
    // The longest address there can be (254) under the longest key Scout writes (a manual digest).
    const longest = subscriberId(`${'l'.repeat(64)}@${'d'.repeat(63)}.${'o'.repeat(63)}.${'m'.repeat(58)}.test`);
    const manual = manualDigestEmailKey(longest, new Date('2026-11-30T08:00:00Z'));
    expect(manual.length).toBeGreaterThan(256);
    const key = providerIdempotencyKey(manual);
    expect(key).toMatch(/^digest_[0-9a-f]{64}$/);
    expect(key).not.toContain(longest);
    // Deterministic: a retry on another machine sends the same key; another email never does.
    expect(providerIdempotencyKey(manual)).toBe(key);
    expect(providerIdempotencyKey(digestEmailKey(longest, '2026-11-30'))).not.toBe(key);
    expect(providerIdempotencyKey(digestEmailKey('u', '2026-11-30'))).toHaveLength(key.length);
    expect(providerIdempotencyKey(alertEmailKey('u', ['u_a']))).toMatch(/^alert_[0-9a-f]{64}$/);
    // A batch key is already fixed length however many members, and digested like the rest.
    const members = Array.from({ length: 100 }, (_, i) => digestEmailKey(`${longest}${i}`, '2026-11-30'));
    expect(batchKeyFor(members)).toHaveLength(batchKeyFor(['a', 'b']).length);
    expect(providerIdempotencyKey(batchKeyFor(members))).toMatch(/^batch_[0-9a-f]{64}$/);
  });
});
