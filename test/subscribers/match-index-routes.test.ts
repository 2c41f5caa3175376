import { describe, expect, it } from 'vitest';
import { decodeProfile, encodeProfile, type IndexedSubscriber } from '../../lib/subscribers/match-index';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';
import { WEEKDAYS } from '../../lib/subscribers/digest-schedule';

const base = (email: string): IndexedSubscriber => ({
  id: subscriberId(email),
  email,
  keywords: ['react'],
  excludes: [],
  minPay: NO_MIN_PAY,
  mode: 'daily',
  profileVersion: 1,
  fitThreshold: 60,
  status: 'active',
  timezone: 'UTC',
  digestHour: null,
  weekdays: [...WEEKDAYS],
  weeklyDay: 'mon',
  feedTokenVersion: 0,
  linkVersion: 0,
});

describe("the match index keeps each active channel's route, so the claim plans its messages without a read", () => {
  const routes = [
    { id: 'ch1', kind: 'telegram' as const, instant: true, digest: false },
    { id: 'ch2', kind: 'webhook' as const, instant: true, digest: true },
    { id: 'ch3', kind: 'slack' as const, instant: false, digest: true },
  ];

  it('round-trips the routes', () => {
    const s = { ...base('ada@example.com'), routes };
    expect(decodeProfile(s.id, encodeProfile(s))).toEqual(s);
  });

  it('round-trips the routes of a subscriber whose address the uid does not imply', () => {
    const s = { ...base('ada@example.com'), id: subscriberId('ada@example.com'), email: 'Ada@Example.com ', routes };
    const decoded = decodeProfile(s.id, encodeProfile(s));
    expect(decoded?.routes).toEqual(routes);
    expect(decoded?.email).toBe('Ada@Example.com ');
  });

  it('a subscriber without channels has the entry it had before channels', () => {
    const s = base('bob@example.com');
    expect(encodeProfile(s)).toBe(encodeProfile({ ...s, routes: [] }));
    expect(decodeProfile(s.id, encodeProfile(s))).not.toHaveProperty('routes');
  });

  it('an entry written before channels reads as no routes', () => {
    const s = base('cy@example.com');
    const before = JSON.stringify(JSON.parse(encodeProfile(s)));
    expect(decodeProfile(s.id, before)?.routes).toBeUndefined();
  });
});
