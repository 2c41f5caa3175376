import { describe, expect, it } from 'vitest';
import { digestDayFor } from '../../lib/ledger/claim-deliveries';
import { deliveryId } from '../../lib/ledger/delivery';
import { alertEmailKey, digestEmailKey } from '../../lib/outbox/outbox-row';
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
    expect(digestDayFor(new Date('2026-11-30T07:59:59Z'), false)).toBe('2026-11-30');
    expect(digestDayFor(new Date('2026-11-30T08:01:00Z'), false)).toBe('2026-11-30');
    expect(digestDayFor(new Date('2026-11-30T08:01:00Z'), true)).toBe('2026-12-01');
    expect(digestDayFor(new Date('2026-12-31T23:00:00Z'), true)).toBe('2027-01-01');
  });
});
