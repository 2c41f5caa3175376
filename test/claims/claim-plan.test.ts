import { describe, expect, it } from 'vitest';
import {
  decideClaim,
  MAX_ALERT_ITEMS,
  planClaim,
  type ClaimCandidate,
  type ClaimDecision,
  type DigestDue,
} from '../../lib/claims/claim-plan';
import type { StoredPosting } from '../../lib/feeds/postings-collection';
import type { EmailPayload } from '../../lib/mail/email-payload';
import type { NearMiss } from '../../lib/matching/score-posting';
import { alertEmailKey } from '../../lib/outbox/outbox-row';
import { shardBucketOf } from '../../lib/runtime/shard';
import type { IndexedSubscriber } from '../../lib/subscribers/match-index';
import type { DeliveryMode } from '../../lib/subscribers/subscriber';
import type { Judgement } from '../../lib/verdicts/judge-postings';

/**
 * The claim's decisions as tables (docs/cycle.md, step 6): what a subscriber's new matches
 * become, and the deliveries and alert row that decision writes. No emulator: the planners are
 * pure, and test/claims/claim-deliveries.emulator.test.ts checks that the claim writes what they plan.
 */

const NOW = new Date('2026-12-02T09:00:00Z');
const EXPIRE = new Date('2027-01-01T09:00:00Z');
const RUN = 'run-1';
const DIGEST: DigestDue = { dueAt: new Date('2026-12-03T08:00:00Z'), period: '2026-12-03' };
const PAYLOAD: EmailPayload = {
  from: 'scout@example.com',
  to: 'a@example.com',
  subject: 'New matches',
  html: '<p>matches</p>',
  text: 'matches',
  headers: {},
};

const subscriberOf = (mode: DeliveryMode) => ({ id: `uid-${mode}`, mode }) as IndexedSubscriber;

type Spec = { job: string; score: number; nearMiss?: NearMiss; fit?: number; fits?: boolean };

function candidate(mode: DeliveryMode, spec: Spec): ClaimCandidate {
  const judgement: Judgement | undefined =
    spec.fits === undefined
      ? undefined
      : { fit: spec.fit ?? null, fitReason: spec.fit === undefined ? null : 'why', fallback: null, fits: spec.fits };
  return {
    subscriber: subscriberOf(mode),
    posting: { id: spec.job, runId: 'earlier-run' } as StoredPosting,
    score: spec.score,
    reasons: [`matched ${spec.job}`],
    ...(spec.nearMiss ? { nearMiss: spec.nearMiss } : {}),
    ...(judgement ? { judgement } : {}),
  };
}

const jobs = (n: number, score = (i: number) => 100 - i): Spec[] =>
  Array.from({ length: n }, (_, i) => ({ job: `job-${i}`, score: score(i) }));
const idsOf = (list: ClaimCandidate[]) => list.map((c) => c.posting.id);

type DecideRow = {
  name: string;
  mode: DeliveryMode;
  specs: Spec[];
  digest?: DigestDue;
  expected: Partial<Record<keyof Omit<ClaimDecision, 'digest'>, string[]>> & { digest?: DigestDue | null };
};

const decideRows: DecideRow[] = [
  {
    name: 'instant: the best matches by score go in one alert',
    mode: 'instant',
    specs: [
      { job: 'low', score: 40 },
      { job: 'high', score: 90 },
      { job: 'mid', score: 70 },
    ],
    expected: { alert: ['high', 'mid', 'low'], capped: [], notAFit: [], queued: [], published: [], nearMisses: [], digest: null },
  },
  {
    name: `instant: past MAX_ALERT_ITEMS (${MAX_ALERT_ITEMS}) the rest are capped, never a second alert`,
    mode: 'instant',
    specs: jobs(MAX_ALERT_ITEMS + 3),
    expected: {
      alert: jobs(MAX_ALERT_ITEMS).map((s) => s.job),
      capped: jobs(MAX_ALERT_ITEMS + 3)
        .slice(MAX_ALERT_ITEMS)
        .map((s) => s.job),
    },
  },
  {
    name: "instant: the model's fit ranks a judged match above its keyword score",
    mode: 'instant',
    specs: [
      { job: 'keywords-high', score: 95, fit: 61, fits: true },
      { job: 'model-high', score: 50, fit: 99, fits: true },
    ],
    expected: { alert: ['model-high', 'keywords-high'], notAFit: [] },
  },
  {
    name: 'instant: a match the model judged below the threshold is not a fit, never in the alert',
    mode: 'instant',
    specs: [
      { job: 'fits', score: 50, fit: 80, fits: true },
      { job: 'misfit', score: 99, fit: 10, fits: false },
    ],
    expected: { alert: ['fits'], notAFit: ['misfit'], capped: [] },
  },
  {
    name: 'instant: a near miss is never a delivery',
    mode: 'instant',
    specs: [
      { job: 'match', score: 50 },
      { job: 'excluded', score: 80, nearMiss: 'excluded' },
    ],
    expected: { alert: ['match'], nearMisses: [] },
  },
  {
    name: 'daily: every match is queued for the next digest not yet claimed; near misses are counted for it',
    mode: 'daily',
    digest: DIGEST,
    specs: [
      { job: 'a', score: 10 },
      { job: 'b', score: 90 },
      { job: 'cheap', score: 80, nearMiss: 'under_min_budget' },
    ],
    expected: { alert: [], queued: ['a', 'b'], nearMisses: ['cheap'], digest: DIGEST },
  },
  {
    name: 'weekly: queued like daily, however many there are (the digest caps, not the claim)',
    mode: 'weekly',
    digest: DIGEST,
    specs: jobs(MAX_ALERT_ITEMS + 3),
    expected: { alert: [], capped: [], queued: jobs(MAX_ALERT_ITEMS + 3).map((s) => s.job), digest: DIGEST },
  },
  {
    name: 'feed: every match is published straight to the feed, with no email; near misses are dropped',
    mode: 'feed',
    specs: [
      { job: 'a', score: 10 },
      { job: 'gone', score: 90, nearMiss: 'excluded' },
    ],
    expected: { alert: [], published: ['a'], nearMisses: [], queued: [], digest: null },
  },
];

describe('decideClaim', () => {
  it.each(decideRows)('$name', ({ mode, specs, digest, expected }) => {
    const decision = decideClaim({ fresh: specs.map((s) => candidate(mode, s)), mode, digest: digest ?? null });
    const { digest: expectedDigest, ...lists } = expected;
    for (const [list, ids] of Object.entries(lists)) expect(idsOf(decision[list as keyof typeof lists]), list).toEqual(ids);
    if (expectedDigest !== undefined) expect(decision.digest).toEqual(expectedDigest);
  });

  it.each<DeliveryMode>(['daily', 'weekly'])('a %s claim without where its digest is due is refused, never queued nowhere', (mode) => {
    expect(() => decideClaim({ fresh: [candidate(mode, { job: 'a', score: 1 })], mode, digest: null })).toThrow(/where its digest is due/);
  });
});

const plan = (mode: DeliveryMode, specs: Spec[], composed: { shown: number } | null, digest: DigestDue | null = null) => {
  const decision = decideClaim({ fresh: specs.map((s) => candidate(mode, s)), mode, digest });
  return planClaim({
    decision,
    subscriber: subscriberOf(mode),
    composed: composed && { payload: PAYLOAD, shown: composed.shown },
    runId: RUN,
    now: NOW,
    expireAt: EXPIRE,
  });
};

describe('planClaim', () => {
  it('feed: created sent at the claim, with no email, no alert, nothing counted as mail', () => {
    const planned = plan('feed', [{ job: 'a', score: 10 }], null);
    expect(planned).toMatchObject({ alert: null, nearMisses: null, sending: 0, queued: 0, skipped: 0, notAFit: 0, planned: [] });
    expect(planned.creates).toEqual([
      {
        uid: 'uid-feed',
        jobId: 'a',
        mode: 'feed',
        score: 10,
        reasons: ['matched a'],
        runId: RUN,
        createdAt: NOW,
        sentAt: NOW,
        expireAt: EXPIRE,
        status: 'sent',
        emailKey: null,
        digestDate: null,
        reason: null,
      },
    ]);
  });

  it("daily: queued with the digest's slot and period and the subscriber's shard bucket, handed to a dry run's flush", () => {
    const planned = plan(
      'daily',
      [
        { job: 'a', score: 10 },
        { job: 'x', score: 5, nearMiss: 'excluded' },
        { job: 'y', score: 5, nearMiss: 'under_min_budget' },
      ],
      null,
      DIGEST,
    );
    expect(planned.creates).toHaveLength(1);
    expect(planned.creates[0]).toMatchObject({
      uid: 'uid-daily',
      jobId: 'a',
      status: 'queued',
      digestDate: DIGEST.period,
      digestDueAt: DIGEST.dueAt,
      shardBucket: shardBucketOf('uid-daily'),
      emailKey: null,
      sentAt: null,
    });
    expect(planned).toMatchObject({ alert: null, queued: 1, sending: 0, skipped: 0 });
    expect(planned.planned.map((p) => [p.delivery.jobId, p.posting.id])).toEqual([['a', 'a']]);
    expect(planned.nearMisses).toEqual({
      uid: 'uid-daily',
      day: DIGEST.period,
      jobs: [
        { jobId: 'x', kind: 'excluded' },
        { jobId: 'y', kind: 'under_min_budget' },
      ],
    });
  });

  it('daily: no near miss, no near-miss write', () => {
    expect(plan('daily', [{ job: 'a', score: 10 }], null, DIGEST).nearMisses).toBeNull();
  });

  it("instant: the alert's row lists what its email shows; what did not fit the email is capped before the rest, and not-a-fit last", () => {
    const specs = [...jobs(MAX_ALERT_ITEMS + 2), { job: 'misfit', score: 100, fit: 1, fits: false }];
    const planned = plan('instant', specs, { shown: 3 });
    const shown = ['job-0', 'job-1', 'job-2'].map((job) => `uid-instant_${job}`);
    const emailKey = alertEmailKey('uid-instant', shown);
    expect(planned.alert?.emailKey).toBe(emailKey);
    expect(planned.alert?.row).toMatchObject({
      uid: 'uid-instant',
      kind: 'alert',
      deliveryIds: shown,
      status: 'pending',
      runId: RUN,
      payload: PAYLOAD,
    });
    expect(planned.alert?.sending.map((d) => [d.jobId, d.status, d.emailKey])).toEqual(
      ['job-0', 'job-1', 'job-2'].map((job) => [job, 'sending', emailKey]),
    );
    expect(planned.creates.map((d) => [d.jobId, d.reason])).toEqual([
      ...jobs(MAX_ALERT_ITEMS + 2)
        .slice(3)
        .map((s) => [s.job, 'alert_cap']),
      ['misfit', 'not_a_fit'],
    ]);
    expect(planned.creates.every((d) => d.status === 'skipped' && d.emailKey === null)).toBe(true);
    expect(planned).toMatchObject({ sending: 3, skipped: MAX_ALERT_ITEMS + 2 - 3 + 1, notAFit: 1, queued: 0 });
  });

  it('instant: every match judged not a fit: no alert, each closed not_a_fit and counted skipped too', () => {
    const planned = plan(
      'instant',
      [
        { job: 'a', score: 90, fit: 5, fits: false },
        { job: 'b', score: 80, fit: 6, fits: false },
      ],
      null,
    );
    expect(planned.alert).toBeNull();
    expect(planned.creates.map((d) => [d.jobId, d.status, d.reason, d.fit])).toEqual([
      ['a', 'skipped', 'not_a_fit', 5],
      ['b', 'skipped', 'not_a_fit', 6],
    ]);
    expect(planned).toMatchObject({ sending: 0, skipped: 2, notAFit: 2 });
  });

  it("a judged delivery carries the model's verdict; a keyword-only one has no verdict fields at all", () => {
    const planned = plan(
      'instant',
      [
        { job: 'judged', score: 50, fit: 77, fits: true },
        { job: 'plain', score: 40 },
      ],
      { shown: 2 },
    );
    const [judged, plain] = planned.alert!.sending;
    expect(judged).toMatchObject({ fit: 77, fitReason: 'why', aiFallback: null });
    expect(Object.keys(plain)).not.toContain('fit');
    expect(Object.keys(plain)).not.toContain('aiFallback');
  });

  it('an alert is never planned without its composed email', () => {
    expect(() => plan('instant', [{ job: 'a', score: 1 }], null)).toThrow(/composed email/);
  });
});
