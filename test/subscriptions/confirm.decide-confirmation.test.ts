import { describe, expect, it } from 'vitest';
import { decideConfirmation } from '../../lib/subscriptions/confirm';
import { confirmUrl, verifyLinkToken } from '../../lib/subscribers/link-token';
import type { Subscriber, SubscriberStatus } from '../../lib/subscribers/subscriber';

const NOW = new Date('2026-11-30T06:00:00Z');
const subscriber = (status: SubscriberStatus, signupNonce?: string): Subscriber => ({
  id: 'YWRhQGV4YW1wbGUuY29t',
  email: 'ada@example.com',
  keywords: ['react'],
  excludes: [],
  about: '',
  profileVersion: 1,
  fitThreshold: 60,
  minPay: { fixed: null, hourly: null, yearly: null },
  mode: 'instant',
  status,
  timezone: 'UTC',
  digestHour: null,
  weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  weeklyDay: 'mon',
  createdAt: NOW,
  confirmedAt: null,
  updatedAt: NOW,
  ...(signupNonce ? { signupNonce } : {}),
});

describe('decideConfirmation: a link confirms only the pending signup it names', () => {
  const cases: [string, Subscriber | undefined, string | undefined, string][] = [
    ['pending, same nonce', subscriber('pending', 'n1'), 'n1', 'activate'],
    ['pending, a newer signup’s nonce', subscriber('pending', 'n2'), 'n1', 'superseded'],
    ['pending from before nonces (none stored)', subscriber('pending'), 'n1', 'superseded'],
    ['a link without a nonce', subscriber('pending', 'n1'), undefined, 'outdated'],
    ['active (the link was used)', subscriber('active'), 'n1', 'used'],
    ['paused', subscriber('paused'), 'n1', 'used'],
    ['unsubscribed', subscriber('unsubscribed'), 'n1', 'unsubscribed'],
    ['gone', undefined, 'n1', 'unknown-subscriber'],
  ];
  it.each(cases)('%s → %s', (_name, stored, nonce, expected) => {
    const decision = decideConfirmation(stored, nonce);
    expect(decision.kind === 'activate' ? 'activate' : decision.reason).toBe(expected);
  });
});

describe('confirmUrl', () => {
  it('signs the nonce into the token, so it cannot be swapped for another', () => {
    const url = confirmUrl({ appUrl: 'https://scout.test', uid: 'u1', secret: 'test-link-secret-0123456789', issuedAt: NOW, nonce: 'n1' });
    const check = verifyLinkToken(new URL(url).searchParams.get('token'), {
      secret: 'test-link-secret-0123456789',
      purpose: 'confirm',
      now: NOW,
    });
    expect(check).toEqual({ ok: true, claims: { uid: 'u1', purpose: 'confirm', exp: NOW.getTime() / 1000 + 2 * 86_400, nonce: 'n1' } });
  });
});
