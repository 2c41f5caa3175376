import { Timestamp } from 'firebase-admin/firestore';
import { describe, expect, it } from 'vitest';
import { decideDigest, digestWrites, firstWriteSize, fitDigest, planDigest, sortDue, type FlushPlan } from '../../lib/claims/digest-plan';
import type { Delivery } from '../../lib/ledger/delivery';
import type { Due } from '../../lib/ledger/due-items';
import type { EmailPayload } from '../../lib/mail/email-payload';
import { digestEmailKey, type OutboxRow, type OutboxStatus } from '../../lib/outbox/outbox-row';
import type { DigestSchedule } from '../../lib/subscribers/digest-schedule';
import type { DeliveryMode, Subscriber, SubscriberStatus } from '../../lib/subscribers/subscriber';
import type { Judgement } from '../../lib/verdicts/judge-postings';

/**
 * The flush's decisions as tables (docs/cycle.md, step 7): which due items a digest may list,
 * which move on or are marked, what each digest lists and closes, and the writes that carry it.
 * No emulator: the planners are pure, and the emulator suites in this folder check that the
 * flush writes what they plan.
 */

const NOW = new Date('2026-12-02T09:00:00Z');
const UID = 'uid-1';
const PERIOD = '2026-12-02';
const DAILY_8_UTC: DigestSchedule = {
  cadence: 'daily',
  timezone: 'UTC',
  hour: 8,
  weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  weeklyDay: 'mon',
};
const PAYLOAD: EmailPayload = {
  from: 'scout@example.com',
  to: 'a@example.com',
  subject: 'Digest',
  html: '<p>digest</p>',
  text: 'digest',
  headers: {},
};

const version = (n: number) => Timestamp.fromMillis(1_000 + n);

function queued(job: string, score: number, fields: Partial<Delivery> = {}): Delivery {
  return {
    uid: UID,
    jobId: job,
    mode: 'daily',
    status: 'queued',
    score,
    reasons: [],
    emailKey: null,
    digestDate: PERIOD,
    digestDueAt: new Date('2026-12-02T08:00:00Z'),
    reason: null,
    runId: 'run-0',
    createdAt: new Date('2026-12-01T10:00:00Z'),
    sentAt: null,
    expireAt: new Date('2027-01-01T00:00:00Z'),
    ...fields,
  };
}

const dueOf = (deliveries: Delivery[], uid = UID): Due => ({
  uid,
  items: deliveries.map((delivery, i) => ({ id: `${uid}_${delivery.jobId}`, delivery, updateTime: version(i) })),
});

const subscriber = (status: SubscriberStatus, mode: DeliveryMode = 'daily') => ({ id: UID, status, mode }) as Subscriber;

const row = (status: OutboxStatus, deliveryIds: string[], uid = UID) => ({ uid, kind: 'digest', status, deliveryIds }) as OutboxRow;

const judgement = (fit: number, fits: boolean): Judgement => ({ fit, fitReason: `fit ${fit}`, fallback: null, fits });

type DecideRow = {
  name: string;
  subscriber: Subscriber | undefined;
  due: Delivery[];
  maxItems: number;
  judgements?: Map<string, Judgement>;
  expected: { top: string[]; closed: [string, string][]; moreCount: number; notAFit: number };
};

const three = [queued('low', 10), queued('high', 90), queued('mid', 50)];

const decideRows: DecideRow[] = [
  {
    name: 'opt-outs win: a deleted subscriber gets no digest, every item closed',
    subscriber: undefined,
    due: three,
    maxItems: 20,
    expected: {
      top: [],
      closed: [
        ['high', 'subscriber_deleted'],
        ['mid', 'subscriber_deleted'],
        ['low', 'subscriber_deleted'],
      ],
      moreCount: 0,
      notAFit: 0,
    },
  },
  ...(['paused', 'unsubscribed', 'pending'] as SubscriberStatus[]).map((status) => ({
    name: `opt-outs win: a ${status} subscriber gets no digest, an old queued item never revives`,
    subscriber: subscriber(status),
    due: three,
    maxItems: 20,
    expected: {
      top: [],
      closed: ['high', 'mid', 'low'].map((job): [string, string] => [job, `subscriber_${status}`]),
      moreCount: 0,
      notAFit: 0,
    },
  })),
  {
    name: 'switched to instant after these were queued: no digest',
    subscriber: subscriber('active', 'instant'),
    due: three,
    maxItems: 20,
    expected: {
      top: [],
      closed: [
        ['high', 'mode_changed'],
        ['mid', 'mode_changed'],
        ['low', 'mode_changed'],
      ],
      moreCount: 0,
      notAFit: 0,
    },
  },
  {
    name: 'a digest lists its items best first',
    subscriber: subscriber('active'),
    due: three,
    maxItems: 20,
    expected: { top: ['high', 'mid', 'low'], closed: [], moreCount: 0, notAFit: 0 },
  },
  {
    name: 'past DIGEST_MAX_ITEMS the rest are closed digest_cap and counted as "N more"',
    subscriber: subscriber('active', 'weekly'),
    due: three,
    maxItems: 2,
    expected: { top: ['high', 'mid'], closed: [['low', 'digest_cap']], moreCount: 1, notAFit: 0 },
  },
  {
    name: "judged: the model's fit ranks, and what it judged below the threshold is closed not_a_fit, not counted in N more",
    subscriber: subscriber('active'),
    due: three,
    maxItems: 1,
    judgements: new Map([
      ['high', judgement(5, false)],
      ['mid', judgement(60, true)],
      ['low', judgement(95, true)],
    ]),
    expected: {
      top: ['low'],
      closed: [
        ['high', 'not_a_fit'],
        ['mid', 'digest_cap'],
      ],
      moreCount: 1,
      notAFit: 1,
    },
  },
  {
    name: 'equal scores are listed in job id order, so every run lists the same digest',
    subscriber: subscriber('active'),
    due: [queued('b', 50), queued('a', 50)],
    maxItems: 20,
    expected: { top: ['a', 'b'], closed: [], moreCount: 0, notAFit: 0 },
  },
];

describe('decideDigest', () => {
  it.each(decideRows)('$name', ({ subscriber, due, maxItems, judgements, expected }) => {
    const decided = decideDigest({ subscriber, due, uid: UID, maxItems, judgements });
    expect(decided.top.map((d) => d.jobId)).toEqual(expected.top);
    expect(decided.closed.map((d) => [d.jobId, d.reason])).toEqual(expected.closed);
    expect(decided.closed.every((d) => d.status === 'skipped')).toBe(true);
    expect({ moreCount: decided.moreCount, notAFit: decided.notAFit }).toEqual({
      moreCount: expected.moreCount,
      notAFit: expected.notAFit,
    });
  });

  it("a judged item carries the model's verdict into the digest", () => {
    const decided = decideDigest({
      subscriber: subscriber('active'),
      due: [queued('a', 1)],
      uid: UID,
      maxItems: 5,
      judgements: new Map([['a', judgement(88, true)]]),
    });
    expect(decided.top[0]).toMatchObject({ fit: 88, fitReason: 'fit 88', aiFallback: null });
  });
});

type SortRow = {
  name: string;
  due: Due;
  period: string | null;
  rows: [string, OutboxRow | undefined][];
  expected: { toDecide: string[]; moves: string[]; settles: { emailKey: string; deliveryIds: string[] }[] };
};

const a = queued('a', 90);
const b = queued('b', 50);
const thisDigest = digestEmailKey(UID, PERIOD);
const earlier = digestEmailKey(UID, '2026-12-01');

const sortRows: SortRow[] = [
  {
    name: 'nothing lists them and the period is unclaimed: decided for this period',
    due: dueOf([a, b]),
    period: PERIOD,
    rows: [[thisDigest, undefined]],
    expected: { toDecide: ['a', 'b'], moves: [], settles: [] },
  },
  {
    name: 'an item an earlier digest lists is never offered again; once that row is final its item is marked with it',
    due: dueOf([a, b]),
    period: PERIOD,
    rows: [[earlier, row('sent', [`${UID}_a`])]],
    expected: { toDecide: ['b'], moves: [], settles: [{ emailKey: earlier, deliveryIds: [`${UID}_a`] }] },
  },
  ...(['pending', 'sending'] as OutboxStatus[]).map((status) => ({
    name: `an item a ${status} digest lists is held by it: neither offered again nor marked yet`,
    due: dueOf([a]),
    period: PERIOD,
    rows: [[earlier, row(status, [`${UID}_a`])]] as [string, OutboxRow][],
    expected: { toDecide: [], moves: [], settles: [] },
  })),
  {
    name: "this period's digest is claimed without them: they move on to the next slot, never a second digest",
    due: dueOf([a, b]),
    period: PERIOD,
    rows: [[thisDigest, row('pending', [`${UID}_other`])]],
    expected: { toDecide: [], moves: ['a', 'b'], settles: [] },
  },
  {
    name: "another subscriber's row lists nothing of theirs",
    due: dueOf([a]),
    period: PERIOD,
    rows: [[digestEmailKey('uid-2', PERIOD), row('sent', [`${UID}_a`], 'uid-2')]],
    expected: { toDecide: ['a'], moves: [], settles: [] },
  },
  {
    name: 'no digest can go (no schedule): still decided, with no period (decideDigest closes them)',
    due: dueOf([a]),
    period: null,
    rows: [],
    expected: { toDecide: ['a'], moves: [], settles: [] },
  },
];

describe('sortDue', () => {
  it.each(sortRows)('$name', ({ due, period, rows, expected }) => {
    const sorted = sortDue({
      due: [due],
      subscribers: [subscriber('active')],
      schedules: [period ? DAILY_8_UTC : null],
      periods: [period],
      rows: new Map(rows),
      now: NOW,
    });
    expect(sorted.toDecide.flatMap((t) => t.free.map((d) => d.jobId))).toEqual(expected.toDecide);
    expect(sorted.toDecide.every((t) => t.period === (period ?? ''))).toBe(true);
    expect(sorted.moves.map((m) => m.delivery.jobId)).toEqual(expected.moves);
    expect(sorted.settles.map(({ emailKey, deliveryIds }) => ({ emailKey, deliveryIds }))).toEqual(expected.settles);
  });

  it('a move goes to the next slot and its period, guarded by the version read', () => {
    const sorted = sortDue({
      due: [dueOf([a, b])],
      subscribers: [subscriber('active')],
      schedules: [DAILY_8_UTC],
      periods: [PERIOD],
      rows: new Map([[thisDigest, row('pending', [])]]),
      now: NOW,
    });
    expect(sorted.moves).toEqual([
      { delivery: a, version: version(0), fields: { digestDueAt: new Date('2026-12-03T08:00:00Z'), digestDate: '2026-12-03' } },
      { delivery: b, version: version(1), fields: { digestDueAt: new Date('2026-12-03T08:00:00Z'), digestDate: '2026-12-03' } },
    ]);
  });
});

const planOf = (deliveries: Delivery[], maxItems: number, judgements?: Map<string, Judgement>): FlushPlan =>
  planDigest(
    { due: dueOf(deliveries), free: deliveries, subscriber: subscriber('active'), period: PERIOD },
    { maxItems, judged: judgements !== undefined, judgements },
  );

describe('fitDigest', () => {
  it('a digest too heavy for one email lists the best that fit; the rest are capped and join "N more"', () => {
    const { plan, row: created } = fitDigest(planOf(three, 2), { payload: PAYLOAD, shown: 1 }, { runId: 'run-1', now: NOW, expireAt: NOW });
    expect(plan.top.map((d) => d.jobId)).toEqual(['high']);
    expect(plan.closed.map((d) => [d.jobId, d.reason])).toEqual([
      ['mid', 'digest_cap'],
      ['low', 'digest_cap'],
    ]);
    expect(plan.moreCount).toBe(2);
    expect(created).toMatchObject({
      uid: UID,
      kind: 'digest',
      deliveryIds: [`${UID}_high`],
      status: 'pending',
      payload: PAYLOAD,
      runId: 'run-1',
    });
  });

  it('a digest that fits lists everything it planned', () => {
    const { plan } = fitDigest(planOf(three, 20), { payload: PAYLOAD, shown: 3 }, { runId: 'run-1', now: NOW, expireAt: NOW });
    expect(plan.top).toHaveLength(3);
    expect(plan.closed).toEqual([]);
  });
});

describe('digestWrites', () => {
  const many = Array.from({ length: 250 }, (_, i) => queued(`job-${String(i).padStart(3, '0')}`, 1_000 - i));
  const rowFor = (plan: FlushPlan) =>
    fitDigest(plan, { payload: PAYLOAD, shown: plan.top.length }, { runId: 'run-1', now: NOW, expireAt: NOW }).row;

  it('the row and its first closes are one part, all or nothing; the other closes follow in parts of 100', () => {
    const plan = planOf(many, 20);
    const parts = digestWrites(plan, rowFor(plan));
    expect(parts.map((p) => [p.row !== null, p.updates.length])).toEqual([
      [true, 100],
      [false, 100],
      [false, 30],
    ]);
    expect(parts.every((p) => p.emailKey === thisDigest)).toBe(true);
    expect(firstWriteSize(plan)).toBe(1 + 100);
  });

  it('every close is guarded by the version the flush read', () => {
    const plan = planOf(many, 20);
    const [first] = digestWrites(plan, rowFor(plan));
    expect(first.updates[0]).toEqual({
      delivery: plan.closed[0],
      version: plan.versions.get(plan.closed[0].jobId),
      fields: { status: 'skipped', reason: 'digest_cap' },
    });
  });

  it('judged: the closes carry their verdict, and the listed items get their fit written with the row', () => {
    const judgements = new Map(three.map((d) => [d.jobId, judgement(d.score, d.jobId !== 'low')]));
    const plan = planOf(three, 20, judgements);
    const [only, ...rest] = digestWrites(plan, rowFor(plan));
    expect(rest).toEqual([]);
    expect(only.updates.map((u) => [u.delivery.jobId, u.fields])).toEqual([
      ['low', { status: 'skipped', reason: 'not_a_fit', fit: 10, fitReason: 'fit 10', aiFallback: null }],
      ['high', { fit: 90, fitReason: 'fit 90', aiFallback: null }],
      ['mid', { fit: 50, fitReason: 'fit 50', aiFallback: null }],
    ]);
    expect(firstWriteSize(plan)).toBe(1 + only.updates.length);
  });

  it('no digest (an opt-out): only the closes, with no row; nothing to close and no row: nothing written', () => {
    const closing = decideDigestPlan(three);
    expect(digestWrites(closing, null).map((p) => [p.row, p.updates.length])).toEqual([[null, 3]]);
    expect(digestWrites({ ...closing, closed: [] }, null)).toEqual([]);
  });
});

function decideDigestPlan(deliveries: Delivery[]): FlushPlan {
  return planDigest(
    { due: dueOf(deliveries), free: deliveries, subscriber: subscriber('paused'), period: PERIOD },
    { maxItems: 20, judged: false, judgements: undefined },
  );
}
