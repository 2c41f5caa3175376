import { FieldValue } from 'firebase-admin/firestore';
import { describe, expect, it } from 'vitest';
import { planSignupWrite, type SignupPreferences, type SignupRead, type SignupWrite } from '../../lib/subscriptions/plan-signup';
import type { Subscriber, SubscriberStatus } from '../../lib/subscribers/subscriber';
import { PENDING_SIGNUP_DAYS } from '../../lib/subscribers/subscriber';
import { addDays } from '../../lib/store/timestamps';

/**
 * What a signup writes, decided from what it read: the table of every kind of subscriber a signup
 * can find (none, pending, unsubscribed, active, paused), with and without the mailbox's allowance,
 * and with email keys found taken. The store's side (the guarded write, the retries) is in
 * signup.emulator.test.ts; here only the decision.
 */

const NOW = new Date('2026-11-30T06:00:00Z');
const LATER = new Date('2026-11-30T09:30:00Z');
const UID = 'YWRhQGV4YW1wbGUuY29t';

const stored = (status: SubscriberStatus, extra: Partial<Subscriber> = {}): Subscriber => ({
  id: UID,
  email: 'ada@example.com',
  keywords: ['react'],
  excludes: [],
  about: 'I build forms',
  profileVersion: 3,
  fitThreshold: 60,
  minPay: { fixed: null, hourly: null, yearly: null },
  mode: 'daily',
  status,
  timezone: 'UTC',
  digestHour: null,
  weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  weeklyDay: 'mon',
  createdAt: NOW,
  confirmedAt: status === 'pending' ? null : NOW,
  updatedAt: NOW,
  ...extra,
});

/** The stored preferences asked for again (AI stage off: no `about`). */
const same: SignupPreferences = {
  keywords: ['react'],
  excludes: [],
  minPay: { fixed: null, hourly: null, yearly: null },
  mode: 'daily',
  timezone: 'UTC',
  digestHour: null,
  weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  weeklyDay: 'mon',
};
const other: SignupPreferences = { ...same, keywords: ['vue'] };

const read = (
  subscriber: Subscriber,
  counters: Partial<Record<'confirmSeq' | 'manageSeq' | 'unsubscribedAt', unknown>> = {},
): SignupRead => ({
  subscriber,
  confirmSeq: 2,
  manageSeq: 4,
  unsubscribedAt: undefined,
  ...counters,
});

const plan = (
  what: SignupRead,
  options: { preferences?: SignupPreferences; mayEmail?: boolean; keysTaken?: number; issuedAt?: Date } = {},
): SignupWrite =>
  planSignupWrite(what, {
    uid: UID,
    email: 'ada@example.com',
    preferences: options.preferences ?? same,
    mayEmail: options.mayEmail ?? true,
    nonce: 'nonce-1',
    keysTaken: options.keysTaken ?? 0,
    now: NOW,
    issuedAt: options.issuedAt ?? NOW,
  });

/** The written shape in brief: the document's write, the outbox row's key, what signUp reports. */
const brief = (write: SignupWrite) => ({
  subscriber: write.subscriber === null ? 'none' : 'create' in write.subscriber ? 'create' : 'update',
  emailKey: write.email?.emailKey ?? null,
  reported: write.result.subscriber,
});

describe('planSignupWrite: from what a signup read to what it writes', () => {
  const cases: [string, SignupWrite, ReturnType<typeof brief>][] = [
    [
      'nobody yet, allowance left: created, confirmation 1',
      plan(null),
      { subscriber: 'create', emailKey: `confirm_${UID}_1`, reported: 'created' },
    ],
    [
      'nobody yet, no allowance: created, no email',
      plan(null, { mayEmail: false }),
      { subscriber: 'create', emailKey: null, reported: 'created' },
    ],
    [
      'nobody yet, two confirmation keys found taken: confirmation 3',
      plan(null, { keysTaken: 2 }),
      { subscriber: 'create', emailKey: `confirm_${UID}_3`, reported: 'created' },
    ],
    [
      'pending, same preferences, no allowance: nothing written',
      plan(read(stored('pending')), { mayEmail: false }),
      { subscriber: 'none', emailKey: null, reported: 'kept' },
    ],
    [
      'pending, same preferences: the next confirmation',
      plan(read(stored('pending'))),
      { subscriber: 'update', emailKey: `confirm_${UID}_3`, reported: 'kept' },
    ],
    [
      'pending, other preferences, no allowance: updated, no email',
      plan(read(stored('pending')), { preferences: other, mayEmail: false }),
      { subscriber: 'update', emailKey: null, reported: 'updated' },
    ],
    [
      'unsubscribed: back to pending, a confirmation',
      plan(read(stored('unsubscribed'))),
      { subscriber: 'update', emailKey: `confirm_${UID}_3`, reported: 'resubscribed' },
    ],
    [
      'unsubscribed, no allowance: back to pending all the same',
      plan(read(stored('unsubscribed')), { mayEmail: false }),
      { subscriber: 'update', emailKey: null, reported: 'resubscribed' },
    ],
    ['active: a manage link', plan(read(stored('active'))), { subscriber: 'update', emailKey: `manage_${UID}_5`, reported: 'kept' }],
    [
      'paused, a manage key found taken: the one after',
      plan(read(stored('paused')), { keysTaken: 1 }),
      { subscriber: 'update', emailKey: `manage_${UID}_6`, reported: 'kept' },
    ],
    [
      'active, no allowance: nothing written',
      plan(read(stored('active')), { mayEmail: false }),
      { subscriber: 'none', emailKey: null, reported: 'kept' },
    ],
    [
      'active, other preferences: an anonymous form changes nothing of theirs',
      plan(read(stored('active')), { preferences: other }),
      { subscriber: 'update', emailKey: `manage_${UID}_5`, reported: 'kept' },
    ],
    [
      'an old document without counters (or with garbage): they count from 0',
      plan(read(stored('pending'), { confirmSeq: undefined, manageSeq: -3 })),
      { subscriber: 'update', emailKey: `confirm_${UID}_1`, reported: 'kept' },
    ],
  ];
  it.each(cases)('%s', (_name, write, expected) => expect(brief(write)).toEqual(expected));
});

describe('planSignupWrite: what is written', () => {
  it('a new subscriber: pending, this attempt’s nonce, living as long as its link, the counters beside it', () => {
    const write = plan(null, { issuedAt: LATER });
    expect(write.subscriber).toEqual({
      create: expect.objectContaining({
        id: UID,
        status: 'pending',
        about: '',
        profileVersion: 1,
        signupNonce: 'nonce-1',
        expireAt: addDays(LATER, PENDING_SIGNUP_DAYS),
        createdAt: NOW,
        confirmSeq: 1,
        manageSeq: 0,
      }),
    });
    expect(write.email).toEqual({
      kind: 'confirm',
      emailKey: `confirm_${UID}_1`,
      recipient: { id: UID, email: 'ada@example.com', status: 'pending' },
      signupNonce: 'nonce-1',
    });
  });

  it('a new subscriber without the allowance still takes confirmation number 0, so the first email is 1', () => {
    const write = plan(null, { mayEmail: false });
    expect(write.subscriber).toEqual({ create: expect.objectContaining({ confirmSeq: 0, manageSeq: 0 }) });
    expect(write.result.email).toBeNull();
  });

  it('a pending subscriber asking for other keywords: the new preferences, a new profile version, the stored `about` kept', () => {
    const write = plan(read(stored('pending')), { preferences: other });
    expect(write.subscriber).toEqual({
      update: expect.objectContaining({
        keywords: ['vue'],
        about: 'I build forms',
        profileVersion: 4,
        confirmSeq: 3,
        signupNonce: 'nonce-1',
      }),
    });
    expect(write.email?.signupNonce).toBe('nonce-1');
  });

  it('an unsubscribed one: pending again, every old link dead, and the opt-out record keeps the document from expiring', () => {
    const write = plan(read(stored('unsubscribed', { linkVersion: 2 }), { unsubscribedAt: NOW }));
    expect(write.subscriber).toEqual({
      update: expect.objectContaining({ status: 'pending', confirmedAt: null, linkVersion: 3, expireAt: FieldValue.delete() }),
    });
  });

  it('an active one: only the manage counter moves, and the manage link carries no signup nonce', () => {
    const write = plan(read(stored('active', { linkVersion: 7 })), { preferences: other });
    expect(write.subscriber).toEqual({ update: { manageSeq: 5 } });
    expect(write.email).toEqual({
      kind: 'manage',
      emailKey: `manage_${UID}_5`,
      recipient: { id: UID, email: 'ada@example.com', status: 'active', linkVersion: 7 },
    });
  });
});
