import { describe, expect, it } from 'vitest';
import type { BatchOutcome } from '../../lib/mail/mailer';
import type { SendOutcome } from '../../lib/mail/send-outcome';
import type { EmailKind } from '../../lib/outbox/outbox-row';
import {
  answerOf,
  LEASE_RENEW_MARGIN_MS,
  MAX_PACED_RETRIES,
  mustRenewLease,
  NO_SLOT,
  planAfterAnswer,
  providerIdsOf,
  RETRY_RESERVE_MS,
  type SendPlan,
} from '../../lib/outbox/send-plan';
import type { Answer } from '../../lib/outbox/send-rules';

/**
 * What the sender writes after each provider answer, as a table: nextStep's meaning of the
 * answer (test/outbox/send-rules.test.ts) plus what one run can afford — its time budget, its
 * paced retries, its lease. No emulator: the plan is pure, and the emulator suites in this folder
 * check that deliverSendBatch carries it out.
 */

const MAX = 5;
const DELAY = 1_234;

const answers = {
  accepted: { kind: 'accepted' },
  rateLimited: { kind: 'refused', retryable: true, error: '429 rate_limit_exceeded', rateLimited: true },
  invalid: { kind: 'refused', retryable: false, error: '422 validation_error' },
  serverError: { kind: 'ambiguous', error: '500 internal_server_error' },
  concurrent: { kind: 'key-conflict', reason: 'concurrent', error: '409 concurrent_idempotent_requests' },
  quotaOurs: { kind: 'quota', error: '429 daily_quota_exceeded', ours: true },
  noSlot: { kind: 'no-slot' },
} satisfies Record<string, Answer>;

type Row = {
  name: string;
  kinds?: EmailKind[];
  answer: keyof typeof answers;
  attempts?: number;
  handedOver?: boolean;
  batch?: boolean;
  paced?: number;
  /** The run's budget is spent when asked to keep this much in hand (or more). */
  outOfTimeFrom?: number;
  expected: SendPlan | Partial<SendPlan>;
};

const rows: Row[] = [
  { name: 'an accepted request is recorded sent', answer: 'accepted', attempts: MAX, expected: { plan: 'record-sent' } },
  {
    name: 'a quota hands the request back untried, the attempt not counted (§2.11)',
    answer: 'quotaOurs',
    handedOver: true,
    expected: { plan: 'hand-back', result: 'quota', handedOver: true, lastError: '429 daily_quota_exceeded' },
  },
  {
    name: 'a slot that came too late hands the request back as it was',
    answer: 'noSlot',
    expected: { plan: 'hand-back', result: 'released', handedOver: false, lastError: null },
  },
  {
    name: 'a batch refused as a whole goes back pending and dissolved, so each email gets its own verdict',
    answer: 'invalid',
    batch: true,
    kinds: ['alert', 'digest'],
    expected: { plan: 'release', neverSent: true, dissolve: true, asNew: false, lastError: '422 validation_error', backOffMs: null },
  },
  {
    name: 'a permanent refusal of one email is dead at once',
    answer: 'invalid',
    expected: { plan: 'give-up', statuses: ['dead'], error: '422 validation_error', backOffMs: null },
  },
  {
    name: 'at the cap, each member of a batch is closed by its own kind: the alert failed (at-most-once), the digest dead',
    answer: 'serverError',
    batch: true,
    kinds: ['alert', 'digest', 'welcome'],
    attempts: MAX,
    expected: { plan: 'give-up', statuses: ['failed', 'dead', 'failed'], error: 'unknown_outcome: 500 internal_server_error' },
  },
  {
    name: 'a rate limit at the cap still slows the limiter as it gives up',
    answer: 'rateLimited',
    attempts: MAX,
    kinds: ['digest'],
    expected: { plan: 'give-up', statuses: ['dead'], backOffMs: DELAY },
  },
  {
    name: 'an unknown outcome below the cap is retried under the same key, counted, and remembered as possibly handed over',
    answer: 'serverError',
    paced: 3,
    expected: {
      plan: 'retry',
      afterMs: DELAY,
      backOffMs: null,
      handedOver: true,
      error: 'unknown_outcome: 500 internal_server_error',
      recheck: false,
      countsAttempt: true,
      paced: 3,
    },
  },
  {
    name: 'a rate limit is a paced retry: no attempt used, one more paced retry spent, the limiter slowed',
    answer: 'rateLimited',
    paced: 3,
    expected: { plan: 'retry', countsAttempt: false, paced: 4, backOffMs: DELAY, handedOver: false },
  },
  {
    name: 'a key in flight elsewhere is re-read before the retry',
    answer: 'concurrent',
    expected: { plan: 'retry', recheck: true },
  },
  {
    name: 'the last paced retry a run allows is still made',
    answer: 'rateLimited',
    paced: MAX_PACED_RETRIES - 1,
    expected: { plan: 'retry', paced: MAX_PACED_RETRIES },
  },
  {
    name: 'past the paced retries a run allows, a request never handed over goes back pending, unpacked, to be batched again',
    answer: 'rateLimited',
    batch: true,
    kinds: ['alert', 'alert'],
    paced: MAX_PACED_RETRIES,
    expected: {
      plan: 'release',
      neverSent: true,
      dissolve: true,
      asNew: true,
      lastError: '429 rate_limit_exceeded',
      backOffMs: DELAY,
    },
  },
  {
    name: 'a lone row past the paced retries goes back pending, keeping its first attempt',
    answer: 'rateLimited',
    paced: MAX_PACED_RETRIES,
    expected: { plan: 'release', neverSent: true, dissolve: true, asNew: false },
  },
  {
    name: 'a run that cannot wait out the delay leaves a request that may have gone out `sending`, packed, for the key-window rule',
    answer: 'serverError',
    batch: true,
    kinds: ['alert', 'digest'],
    outOfTimeFrom: DELAY + RETRY_RESERVE_MS,
    expected: {
      plan: 'release',
      neverSent: false,
      dissolve: false,
      asNew: false,
      lastError: 'unknown_outcome: 500 internal_server_error',
      backOffMs: null,
    },
  },
  {
    name: 'a rate limit after an unknown outcome, with no time left, stays `sending`: an earlier attempt may have gone out',
    answer: 'rateLimited',
    handedOver: true,
    outOfTimeFrom: DELAY + RETRY_RESERVE_MS,
    expected: { plan: 'release', neverSent: false, dissolve: false, asNew: false, backOffMs: DELAY },
  },
  {
    name: 'a run with the delay and its reserve still in hand retries',
    answer: 'serverError',
    outOfTimeFrom: DELAY + RETRY_RESERVE_MS + 1,
    expected: { plan: 'retry' },
  },
];

describe('planAfterAnswer: what the sender writes after a provider answer', () => {
  it.each(rows)('$name', (row) => {
    const kinds = row.kinds ?? ['alert'];
    const asked: number[] = [];
    const plan = planAfterAnswer({
      kinds,
      answer: answers[row.answer],
      batch: row.batch ?? false,
      attempts: row.attempts ?? 1,
      maxAttempts: MAX,
      handedOver: row.handedOver ?? false,
      paced: row.paced ?? 0,
      delayMs: DELAY,
      outOfTime: (reserveMs) => {
        asked.push(reserveMs);
        return reserveMs >= (row.outOfTimeFrom ?? Infinity);
      },
    });
    expect(plan).toMatchObject(row.expected);
    // The budget is asked about only before a wait, never before a record.
    if (plan.plan === 'retry' || asked.length > 0) expect(asked).toEqual([DELAY + RETRY_RESERVE_MS]);
  });

  it('the budget is not asked about when the answer ends the turn', () => {
    for (const name of ['accepted', 'quotaOurs', 'noSlot', 'invalid'] as const) {
      const plan = planAfterAnswer({
        kinds: ['digest'],
        answer: answers[name],
        batch: false,
        attempts: 1,
        maxAttempts: MAX,
        handedOver: false,
        paced: 0,
        delayMs: DELAY,
        outOfTime: () => {
          throw new Error(`asked about the budget after ${name}`);
        },
      });
      expect(plan.plan).not.toBe('retry');
    }
  });
});

describe('mustRenewLease: a write before the next attempt only when it is needed', () => {
  const NOW = 1_000_000;
  it.each([
    { name: 'an attempt that counts is recorded before it is made, lease and all', countsAttempt: true, leftMs: 90_000, expected: true },
    { name: 'a paced retry with the lease safe writes nothing', countsAttempt: false, leftMs: LEASE_RENEW_MARGIN_MS, expected: false },
    { name: 'a paced retry renews a lease about to run short', countsAttempt: false, leftMs: LEASE_RENEW_MARGIN_MS - 1, expected: true },
  ])('$name', ({ countsAttempt, leftMs, expected }) => {
    expect(mustRenewLease({ countsAttempt, now: NOW, leaseSafeUntil: NOW + leftMs })).toBe(expected);
  });
});

describe('answerOf and providerIdsOf: the provider answer as the rules read it', () => {
  const refused = (status: number): SendOutcome => ({ kind: 'refused', retryable: true, status, error: `${status}`, retryAfterMs: null });
  const quota: SendOutcome = { kind: 'quota', period: 'daily', status: 429, error: '429 daily_quota_exceeded', retryAfterMs: null };

  it('only a 429 refusal is the provider pacing requests', () => {
    expect(answerOf(refused(429), false)).toMatchObject({ kind: 'refused', rateLimited: true });
    expect(answerOf(refused(400), false)).toMatchObject({ kind: 'refused', rateLimited: false });
  });

  it('a quota answer is ours only when the run counted it as refused', () => {
    expect(answerOf(quota, true)).toMatchObject({ kind: 'quota', ours: true });
    expect(answerOf(quota, false)).toMatchObject({ kind: 'quota', ours: false });
  });

  it('a slot that came too late stays what it is', () => {
    expect(answerOf(NO_SLOT, false)).toEqual({ kind: 'no-slot' });
  });

  it('an accepted request gives one provider id per member, in member order; any other answer none', () => {
    const batch: BatchOutcome = { kind: 'accepted', providerIds: ['p1', 'p2'] };
    expect(providerIdsOf(batch)).toEqual(['p1', 'p2']);
    expect(providerIdsOf({ kind: 'accepted', providerId: 'p0' })).toEqual(['p0']);
    expect(providerIdsOf(refused(429))).toEqual([]);
    expect(providerIdsOf(NO_SLOT)).toEqual([]);
  });
});
