import { describe, expect, it } from 'vitest';
import { AT_MOST_ONCE_KINDS, EMAIL_KINDS, MAY_RECEIVE, type EmailKind, type OutboxStatus } from '../../lib/outbox/outbox-row';
import {
  abandonedStep,
  leaseStep,
  nextStep,
  PROVIDER_KEY_WINDOW_MS,
  type AbandonedStep,
  type Answer,
  type LeaseStep,
  type SendStep,
} from '../../lib/outbox/send-rules';
import { subscriberStatuses } from '../../lib/subscribers/subscriber';

/**
 * The send rules of docs/design.md §2 as a table: every row is named by the invariant it protects. No
 * emulator: the rules are pure, and the emulator suites in this folder check that the outbox
 * carries them out.
 */

const MAX = 5;
const DELAY = 1_234;
/** The alert and the welcome: their deliveries are claimed with the row, so the email goes out at most once. */
const AT_MOST_ONCE = [...AT_MOST_ONCE_KINDS];
const OTHERS = EMAIL_KINDS.filter((k) => !AT_MOST_ONCE.includes(k));
const HOUR = 3_600_000;

const answers = {
  accepted: { kind: 'accepted' },
  rateLimited: { kind: 'refused', retryable: true, error: '429 rate_limit_exceeded', rateLimited: true },
  invalid: { kind: 'refused', retryable: false, error: '422 validation_error' },
  serverError: { kind: 'ambiguous', error: '500 internal_server_error' },
  timeout: { kind: 'ambiguous', error: 'network timeout' },
  concurrent: { kind: 'key-conflict', reason: 'concurrent', error: '409 concurrent_idempotent_requests' },
  mismatch: { kind: 'key-conflict', reason: 'mismatch', error: '409 invalid_idempotent_request' },
  quotaOurs: { kind: 'quota', error: '429 daily_quota_exceeded', ours: true },
  quotaEarlier: { kind: 'quota', error: '429 daily_quota_exceeded', ours: false },
  noSlot: { kind: 'no-slot' },
} satisfies Record<string, Answer>;
type AnswerName = keyof typeof answers;
const UNKNOWN: AnswerName[] = ['serverError', 'timeout', 'concurrent'];
const RETRYABLE: AnswerName[] = ['rateLimited', ...UNKNOWN];

type SendRow = {
  name: string;
  kind: EmailKind;
  answer: AnswerName;
  attempts: number;
  handedOver?: boolean;
  batch?: boolean;
  expected: SendStep | Partial<SendStep>;
};

const cross = (
  kinds: EmailKind[],
  names: AnswerName[],
  attempts: number[],
  row: (kind: EmailKind, answer: AnswerName, attempts: number) => SendRow,
): SendRow[] => kinds.flatMap((kind) => names.flatMap((answer) => attempts.map((n) => row(kind, answer, n))));

const errorOf = (name: AnswerName) => {
  const answer: Answer = answers[name];
  if (!('error' in answer)) return '';
  return answer.kind === 'ambiguous' ? `unknown_outcome: ${answer.error}` : answer.error;
};

const sendRows: SendRow[] = [
  ...cross(EMAIL_KINDS, ['accepted'], [1, MAX], (kind, answer, attempts) => ({
    name: 'an accepted email is recorded sent, even on its last attempt',
    kind,
    answer,
    attempts,
    expected: { step: 'record-sent' },
  })),
  ...cross(AT_MOST_ONCE, UNKNOWN, [MAX], (kind, answer, attempts) => ({
    name: 'at-most-once: an alert whose fate is unknown at the attempt cap is failed, never sent again',
    kind,
    answer,
    attempts,
    expected: { step: 'give-up', status: 'failed', error: errorOf(answer), backOffMs: null },
  })),
  ...cross(OTHERS, UNKNOWN, [MAX], (kind, answer, attempts) => ({
    name: 'nothing is lost silently: any other email whose fate is unknown at the cap is dead, with its last error',
    kind,
    answer,
    attempts,
    expected: { step: 'give-up', status: 'dead', error: errorOf(answer), backOffMs: null },
  })),
  ...cross(EMAIL_KINDS, ['rateLimited'], [MAX], (kind, answer, attempts) => ({
    name: 'a rate limit at the cap of an email never handed over is dead for every kind (nothing went out) and still slows the limiter',
    kind,
    answer,
    attempts,
    handedOver: false,
    expected: { step: 'give-up', status: 'dead', error: errorOf(answer), backOffMs: DELAY },
  })),
  ...cross(OTHERS, ['rateLimited'], [MAX], (kind, answer, attempts) => ({
    name: 'a rate limit at the cap after an unknown outcome is dead for any other kind: at-least-once, the operator may retry it',
    kind,
    answer,
    attempts,
    handedOver: true,
    expected: { step: 'give-up', status: 'dead', error: errorOf(answer), backOffMs: DELAY },
  })),
  ...cross(AT_MOST_ONCE, ['rateLimited'], [MAX], (kind, answer, attempts) => ({
    name: 'at-most-once: an alert whose earlier attempt may have gone out is failed at the cap even when the last answer is a 429, so no retry can send it twice',
    kind,
    answer,
    attempts,
    handedOver: true,
    expected: {
      step: 'give-up',
      status: 'failed',
      error: `unknown_outcome: an earlier attempt may have been sent; last answer ${errorOf(answer)}`,
      backOffMs: DELAY,
    },
  })),
  ...cross(EMAIL_KINDS, UNKNOWN, [1, MAX - 1], (kind, answer, attempts) => ({
    name: 'below the cap an unknown outcome is retried under the same key, and remembered as possibly handed over',
    kind,
    answer,
    attempts,
    expected: { step: 'retry', afterMs: DELAY, backOffMs: null, handedOver: true, error: errorOf(answer) },
  })),
  ...cross(EMAIL_KINDS, ['rateLimited'], [MAX - 1], (kind, answer, attempts) => ({
    name: 'a rate limit is retried after its delay and slows every send of the limiter; it never counts as handed over',
    kind,
    answer,
    attempts,
    expected: { step: 'retry', afterMs: DELAY, backOffMs: DELAY, handedOver: false, recheck: false },
  })),
  ...cross(EMAIL_KINDS, ['rateLimited'], [1, MAX - 1], (kind, answer, attempts) => ({
    name: 'a rate limit uses up no attempt: callers sharing the provider rate (shards) are refused now and then, and that must never kill an email',
    kind,
    answer,
    attempts,
    expected: { step: 'retry', countsAttempt: false },
  })),
  ...cross(EMAIL_KINDS, UNKNOWN, [1, MAX - 1], (kind, answer, attempts) => ({
    name: 'every other retry uses up an attempt, so an email the provider keeps failing ends dead or failed at the cap',
    kind,
    answer,
    attempts,
    expected: { step: 'retry', countsAttempt: true },
  })),
  ...cross(EMAIL_KINDS, ['rateLimited'], [MAX - 1], (kind, answer, attempts) => ({
    name: 'a rate limit does not forget that an earlier attempt may have reached the provider',
    kind,
    answer,
    attempts,
    handedOver: true,
    expected: { step: 'retry', handedOver: true },
  })),
  ...cross(EMAIL_KINDS, ['concurrent'], [MAX - 1], (kind, answer, attempts) => ({
    name: 'a key in flight elsewhere is re-read before the retry: that sender may have finished the job',
    kind,
    answer,
    attempts,
    expected: { step: 'retry', recheck: true },
  })),
  ...cross(EMAIL_KINDS, ['serverError', 'rateLimited'], [MAX - 1], (kind, answer, attempts) => ({
    name: 'only a key in flight elsewhere is re-read before a retry',
    kind,
    answer,
    attempts,
    expected: { step: 'retry', recheck: false },
  })),
  ...cross(EMAIL_KINDS, ['mismatch'], [1, MAX], (kind, answer, attempts) => ({
    name: 'a changed body under a used key is dead at once: never resent under a new key',
    kind,
    answer,
    attempts,
    handedOver: true,
    expected: { step: 'give-up', status: 'dead', error: `invalid_idempotent_request: ${errorOf(answer)}`, backOffMs: null },
  })),
  ...cross(EMAIL_KINDS, ['invalid'], [1], (kind, answer, attempts) => ({
    name: 'a permanent refusal of one email is dead at once: retrying cannot help',
    kind,
    answer,
    attempts,
    expected: { step: 'give-up', status: 'dead', error: errorOf(answer), backOffMs: null },
  })),
  ...cross(EMAIL_KINDS, ['invalid'], [1, MAX], (kind, answer, attempts) => ({
    name: 'a permanent refusal of a batch sends its emails alone, so one bad email does not sink the others',
    kind,
    answer,
    attempts,
    batch: true,
    expected: { step: 'send-alone', error: errorOf(answer) },
  })),
  ...[false, true].flatMap((handedOver) =>
    cross(EMAIL_KINDS, ['quotaOurs'], [1, MAX], (kind, answer, attempts) => ({
      name: `a quota never uses up an attempt, not even the last; handed back ${handedOver ? '`sending` for the key-window rule' : 'untried'}`,
      kind,
      answer,
      attempts,
      handedOver,
      expected: { step: 'hand-back', result: 'quota', handedOver, error: errorOf(answer) },
    })),
  ),
  ...cross(EMAIL_KINDS, ['quotaEarlier'], [MAX], (kind, answer, attempts) => ({
    name: 'a send stopped by an earlier quota refusal never left: its row keeps its last error',
    kind,
    answer,
    attempts,
    expected: { step: 'hand-back', result: 'quota', handedOver: false, error: null },
  })),
  ...cross(EMAIL_KINDS, ['noSlot'], [MAX], (kind, answer, attempts) => ({
    name: 'a slot that came too late hands the email back untried, the attempt not counted',
    kind,
    answer,
    attempts,
    handedOver: true,
    expected: { step: 'hand-back', result: 'released', handedOver: true, error: null },
  })),
];

describe('nextStep: what a provider answer leads to', () => {
  it.each(sendRows.map((row) => ({ ...row, title: `${row.kind}, ${row.answer}, attempt ${row.attempts}/${MAX}` })))(
    '$name ($title)',
    (row) => {
      const step = nextStep({
        kind: row.kind,
        answer: answers[row.answer],
        batch: row.batch ?? false,
        attempts: row.attempts,
        maxAttempts: MAX,
        handedOver: row.handedOver ?? false,
        delayMs: DELAY,
      });
      expect(step).toMatchObject(row.expected);
    },
  );

  it('every retryable answer below the cap is retried, for every kind (the table misses none)', () => {
    for (const kind of EMAIL_KINDS)
      for (const name of RETRYABLE) {
        const step = nextStep({
          kind,
          answer: answers[name],
          batch: true,
          attempts: MAX - 1,
          maxAttempts: MAX,
          handedOver: false,
          delayMs: 0,
        });
        expect(step.step).toBe('retry');
      }
  });
});

const NOW = new Date('2026-03-10T09:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const INSIDE = PROVIDER_KEY_WINDOW_MS - HOUR;
const OUTSIDE = PROVIDER_KEY_WINDOW_MS + 1;

type RowState = 'pending' | 'pending-retried' | 'sending-abandoned' | 'sending-live' | 'sent' | 'failed' | 'dead' | 'skipped';
const row = (kind: EmailKind, state: RowState, keyAge: number | null, signupNonce: string | null = null) => ({
  kind,
  status: (state.startsWith('pending') ? 'pending' : state.startsWith('sending') ? 'sending' : state) as OutboxStatus,
  leaseUntil: state === 'sending-live' ? new Date(NOW.getTime() + 60_000) : state === 'sending-abandoned' ? ago(1) : null,
  firstAttemptAt: keyAge === null ? null : ago(keyAge),
  signupNonce,
});
const mayReceive = (kind: EmailKind) => ({ status: MAY_RECEIVE[kind][0] as (typeof subscriberStatuses)[number], signupNonce: 'n1' });

type LeaseRow = {
  name: string;
  kind: EmailKind;
  state: RowState;
  keyAge: number | null;
  subscriber?: { status: (typeof subscriberStatuses)[number]; signupNonce?: string } | null;
  signupNonce?: string;
  expected: LeaseStep;
};

const forKinds = (kinds: EmailKind[], ages: (number | null)[], f: (kind: EmailKind, keyAge: number | null) => LeaseRow) =>
  kinds.flatMap((kind) => ages.map((age) => f(kind, age)));

const leaseRows: LeaseRow[] = [
  ...forKinds(EMAIL_KINDS, [null], (kind, keyAge) => ({
    name: 'a new row is leased',
    kind,
    state: 'pending',
    keyAge,
    expected: { step: 'lease' },
  })),
  ...forKinds(EMAIL_KINDS, [INSIDE, OUTSIDE], (kind, keyAge) => ({
    name: 'a pending row was never handed to the provider: it may go whatever the age of its key',
    kind,
    state: 'pending-retried',
    keyAge,
    expected: { step: 'lease' },
  })),
  ...forKinds(AT_MOST_ONCE, [INSIDE, PROVIDER_KEY_WINDOW_MS], (kind, keyAge) => ({
    name: 'an abandoned alert inside the key window is resent under its key, which the provider still dedupes',
    kind,
    state: 'sending-abandoned',
    keyAge,
    expected: { step: 'lease' },
  })),
  ...forKinds(AT_MOST_ONCE, [OUTSIDE, 3 * 24 * HOUR], (kind, keyAge) => ({
    name: 'at-most-once: never re-send an alert with a key older than the provider window; it fails visibly',
    kind,
    state: 'sending-abandoned',
    keyAge,
    expected: { step: 'give-up', reason: 'unknown_outcome' },
  })),
  ...forKinds(OTHERS, [INSIDE, OUTSIDE], (kind, keyAge) => ({
    name: 'at-least-once: an abandoned digest (or account email) is sent again, under its key inside the window',
    kind,
    state: 'sending-abandoned',
    keyAge,
    expected: { step: 'lease' },
  })),
  ...forKinds(EMAIL_KINDS, [INSIDE, OUTSIDE], (kind, keyAge) => ({
    name: 'a live lease belongs to its holder, however old the key',
    kind,
    state: 'sending-live',
    keyAge,
    expected: { step: 'not-ours' },
  })),
  ...(['sent', 'failed', 'dead', 'skipped'] as const).flatMap((state) =>
    forKinds(EMAIL_KINDS, [INSIDE], (kind, keyAge) => ({
      name: `a ${state} row is final: it is never sent again`,
      kind,
      state,
      keyAge,
      expected: { step: 'not-ours' },
    })),
  ),
  ...EMAIL_KINDS.flatMap((kind) =>
    subscriberStatuses
      .filter((status) => !MAY_RECEIVE[kind].includes(status))
      .map((status): LeaseRow => ({
        name: 'opt-outs win: a subscriber who may not receive this kind gets nothing',
        kind,
        state: 'pending',
        keyAge: null,
        subscriber: { status, signupNonce: 'n1' },
        expected: { step: 'skip', reason: `subscriber_${status}` },
      })),
  ),
  ...forKinds(EMAIL_KINDS, [INSIDE], (kind, keyAge) => ({
    name: 'opt-outs win: a deleted subscriber gets nothing, even an email already on its way',
    kind,
    state: 'sending-abandoned',
    keyAge,
    subscriber: null,
    expected: { step: 'skip', reason: 'subscriber_deleted' },
  })),
  {
    name: 'opt-outs win over the key-window rule: an unsubscribed alert is skipped, not failed',
    kind: 'alert',
    state: 'sending-abandoned',
    keyAge: OUTSIDE,
    subscriber: { status: 'unsubscribed' },
    expected: { step: 'skip', reason: 'subscriber_unsubscribed' },
  },
  {
    name: 'a confirmation whose signup was replaced is skipped: its link would be refused',
    kind: 'confirm',
    state: 'pending-retried',
    keyAge: INSIDE,
    signupNonce: 'n0',
    subscriber: { status: 'pending', signupNonce: 'n1' },
    expected: { step: 'skip', reason: 'signup_superseded' },
  },
  {
    name: 'a confirmation of the current signup is leased',
    kind: 'confirm',
    state: 'pending',
    keyAge: null,
    signupNonce: 'n1',
    subscriber: { status: 'pending', signupNonce: 'n1' },
    expected: { step: 'lease' },
  },
];

describe('leaseStep: whether a row may be taken for a send', () => {
  it.each(
    leaseRows.map((r) => ({
      ...r,
      title: `${r.kind}, ${r.state}, key age ${r.keyAge === null ? '-' : `${(r.keyAge / HOUR).toFixed(1)} h`}`,
    })),
  )('$name ($title)', (r) => {
    const subscriber = r.subscriber === null ? undefined : (r.subscriber ?? mayReceive(r.kind));
    expect(leaseStep({ row: row(r.kind, r.state, r.keyAge, r.signupNonce ?? null), subscriber, now: NOW })).toEqual(r.expected);
  });

  it('a row that is gone is nobody’s', () => {
    expect(leaseStep({ row: undefined, subscriber: mayReceive('alert'), now: NOW })).toEqual({ step: 'not-ours' });
  });
});

type AbandonedRow = { name: string; kind: EmailKind; keyAge: number; sameRequest: boolean; expected: AbandonedStep };

const abandonedRows: AbandonedRow[] = [
  ...EMAIL_KINDS.map((kind): AbandonedRow => ({
    name: 'an abandoned batch inside the key window is resent whole, under its key, so members that went out are dropped',
    kind,
    keyAge: INSIDE,
    sameRequest: true,
    expected: { step: 'resend-under-key' },
  })),
  ...[
    { keyAge: OUTSIDE, sameRequest: true, why: 'past the key window' },
    { keyAge: INSIDE, sameRequest: false, why: 'that can no longer be rebuilt byte for byte' },
  ].flatMap(({ keyAge, sameRequest, why }) => [
    ...AT_MOST_ONCE.map((kind): AbandonedRow => ({
      name: `at-most-once: an alert (or welcome) of an abandoned batch ${why} fails visibly (unknown_outcome)`,
      kind,
      keyAge,
      sameRequest,
      expected: { step: 'give-up', reason: 'unknown_outcome' },
    })),
    ...OTHERS.map((kind): AbandonedRow => ({
      name: `at-least-once: any other email of an abandoned batch ${why} is sent again on its own`,
      kind,
      keyAge,
      sameRequest,
      expected: { step: 'send-again' },
    })),
  ]),
];

describe('abandonedStep: a send whose holder died', () => {
  it.each(abandonedRows.map((r) => ({ ...r, title: `${r.kind}, key age ${(r.keyAge / HOUR).toFixed(1)} h` })))('$name ($title)', (r) => {
    expect(abandonedStep({ kind: r.kind, keyAgeMs: r.keyAge, sameRequest: r.sameRequest })).toEqual(r.expected);
  });
});
