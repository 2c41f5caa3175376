import type { StoredPosting } from '../feeds/postings-collection';
import type { EmailPayload } from '../mail/email-payload';
import type { Candidate } from '../matching/match-postings';
import { alertEmailKey, newOutboxRow, type OutboxRow } from '../outbox/outbox-row';
import type { IndexedSubscriber } from '../subscribers/match-index';
import { isDigestMode, type Subscriber } from '../subscribers/subscriber';
import { shardBucketOf } from '../runtime/shard';
import { deliveryId, type Delivery } from '../ledger/delivery';
import { rankOf } from '../matching/rank';
import type { NearMissesOfDigest } from '../ledger/record-near-misses';
import type { Judgement } from '../verdicts/judge-postings';
import type { PlannedMessage } from '../messages/plan-messages';

/** An alert lists a subscriber's best new matches of one cycle; past this, they are recorded as skipped. */
export const MAX_ALERT_ITEMS = 25;

/** A keyword match, with the model's judgement once the verdict stage has judged it (instant subscribers, stage on). */
export type ClaimCandidate = Candidate<StoredPosting, IndexedSubscriber> & { judgement?: Judgement };
/** A queued delivery a claim planned with the commit off (the dry run): not written, so the flush is handed it. */
export type PlannedDelivery = { delivery: Delivery; posting: StoredPosting };

/** Where a digest subscriber's items queued now are due: the next digest not yet claimed (digest-schedule.ts). */
export type DigestDue = { dueAt: Date; period: string };

/**
 * What a claim does with one subscriber's candidates that have no delivery yet (pure: the run and
 * the dry run both decide with it):
 *   instant        → the best MAX_ALERT_ITEMS go in one alert (`sending`), the rest are `skipped` (alert_cap)
 *   daily / weekly → all `queued` for the next digest not yet claimed, due at its slot
 *   feed           → all `sent` at once, with no email: the private feed and the archive are where they go
 */
export type ClaimDecision = {
  alert: ClaimCandidate[];
  capped: ClaimCandidate[];
  /** Judged by the model below the subscriber's fit threshold. */
  notAFit: ClaimCandidate[];
  /** daily: keyword matches left out by an exclude or a pay minimum, counted for the digest's near-miss line (nearMisses/). */
  nearMisses: ClaimCandidate[];
  queued: ClaimCandidate[];
  /** feed: straight to the feed, no email. */
  published: ClaimCandidate[];
  /** daily / weekly: the digest the queued items are due in. */
  digest: DigestDue | null;
};

export function decideClaim(input: { fresh: ClaimCandidate[]; mode: Subscriber['mode']; digest: DigestDue | null }): ClaimDecision {
  const none = { alert: [], capped: [], notAFit: [], queued: [], published: [], nearMisses: [], digest: null };
  if (isDigestMode(input.mode)) {
    if (!input.digest) throw new Error(`a ${input.mode} subscriber's claim needs where its digest is due`);
    return {
      ...none,
      queued: input.fresh.filter((c) => !c.nearMiss),
      nearMisses: input.fresh.filter((c) => c.nearMiss),
      digest: input.digest,
    };
  }
  if (input.mode === 'feed') return { ...none, published: input.fresh.filter((c) => !c.nearMiss) };
  const matched = input.fresh.filter((c) => !c.nearMiss);
  const notAFit = matched.filter((c) => c.judgement && !c.judgement.fits);
  const ranked = matched.filter((c) => !c.judgement || c.judgement.fits).sort((a, b) => candidateRank(b) - candidateRank(a));
  return {
    alert: ranked.slice(0, MAX_ALERT_ITEMS),
    capped: ranked.slice(MAX_ALERT_ITEMS),
    notAFit,
    queued: [],
    published: [],
    nearMisses: [],
    digest: null,
  };
}

const candidateRank = (c: ClaimCandidate) => rankOf({ score: c.score, fit: c.judgement?.fit });

/** The alert's row, the deliveries it carries and its channels' messages: created together, all or nothing (at-most-once). */
export type PlannedAlert = { emailKey: string; row: OutboxRow; sending: Delivery[]; messages: PlannedMessage[] };

/**
 * The instant messages of a subscriber whose email is not instant (a digest or the feed), and the
 * deliveries they carry: created together, all or nothing, so a message exists exactly when its
 * deliveries were claimed by this run.
 */
export type ChannelAlert = { carried: Delivery[]; messages: PlannedMessage[] };

/** The messages of an alert's delivery set for the subscriber's instant channels (none when they have none). */
export type MessagesFor = (items: ClaimCandidate[], deliveryIds: string[], setKey: string) => PlannedMessage[];

/**
 * A subscriber's claim as what to write: the alert (its deliveries with its row), the deliveries
 * created alone (queued items, items over the alert cap, judged not a fit, published), and the
 * digest's near misses. A subscriber any of whose writes lost a race is re-read and re-planned whole.
 */
export type ClaimPlan = {
  alert: PlannedAlert | null;
  channelAlert: ChannelAlert | null;
  /** Each create is its own check, so these stand alone, in this order. */
  creates: Delivery[];
  nearMisses: NearMissesOfDigest | null;
  sending: number;
  queued: number;
  /** Closed without an email: over the alert cap, or judged not a fit (counted in both). */
  skipped: number;
  notAFit: number;
  planned: PlannedDelivery[];
};

export const NOTHING_TO_CLAIM: ClaimPlan = {
  alert: null,
  channelAlert: null,
  creates: [],
  nearMisses: null,
  sending: 0,
  queued: 0,
  skipped: 0,
  notAFit: 0,
  planned: [],
};

/**
 * The deliveries and the alert a decision comes to (pure). `composed` is the alert's email as
 * composed from `decision.alert` within its byte budget: an alert too heavy for its row (postings
 * at every length cap) carries the `shown` best, and the rest are capped.
 */
export function planClaim(input: {
  decision: ClaimDecision;
  subscriber: Pick<IndexedSubscriber, 'id' | 'mode'>;
  composed: { payload: EmailPayload; shown: number } | null;
  runId: string;
  now: Date;
  expireAt: Date;
  /** The subscriber's instant channels' messages; absent or returning none when they have no channel. */
  messagesFor?: MessagesFor;
}): ClaimPlan {
  const { decision, subscriber, now } = input;
  const delivery = deliveryOf(input);
  const messagesFor = input.messagesFor ?? (() => []);
  if (subscriber.mode === 'feed') {
    // Each create is its own check, as for any delivery: a pair published twice is one entry.
    const published = decision.published.map((c) =>
      delivery(c, { status: 'sent', emailKey: null, digestDate: null, reason: null, sentAt: now }),
    );
    return withChannelAlert({ ...NOTHING_TO_CLAIM, creates: published }, decision.published, subscriber.id, messagesFor);
  }
  if (decision.digest)
    return withChannelAlert(planQueued(decision, decision.digest, subscriber.id, delivery), decision.queued, subscriber.id, messagesFor);
  const notAFit = decision.notAFit.map((c) => delivery(c, { status: 'skipped', emailKey: null, digestDate: null, reason: 'not_a_fit' }));
  if (decision.alert.length === 0) return { ...NOTHING_TO_CLAIM, creates: notAFit, skipped: notAFit.length, notAFit: notAFit.length };
  if (!input.composed) throw new Error('an alert is planned from its composed email');
  const { payload, shown } = input.composed;
  const top = decision.alert.slice(0, shown);
  const ids = top.map((c) => deliveryId(subscriber.id, c.posting.id));
  const emailKey = alertEmailKey(subscriber.id, ids);
  const sending = top.map((c) => delivery(c, { status: 'sending', emailKey, digestDate: null, reason: null }));
  const capped = [
    ...[...decision.alert.slice(shown), ...decision.capped].map((c) =>
      delivery(c, { status: 'skipped', emailKey: null, digestDate: null, reason: 'alert_cap' }),
    ),
    ...notAFit,
  ];
  const row = newOutboxRow({
    uid: subscriber.id,
    kind: 'alert',
    deliveryIds: ids,
    payload,
    runId: input.runId,
    now,
    expireAt: input.expireAt,
  });
  return {
    ...NOTHING_TO_CLAIM,
    alert: { emailKey, row, sending, messages: messagesFor(top, ids, emailKey) },
    creates: capped,
    sending: top.length,
    skipped: capped.length,
    notAFit: notAFit.length,
  };
}

/**
 * A digest or feed subscriber's instant channels get an alert of the run's new matches, best first,
 * at most MAX_ALERT_ITEMS (the archive has the rest): its deliveries leave the creates that stand
 * alone and are created with the messages, keyed by the set they carry as an email alert would be.
 */
function withChannelAlert(plan: ClaimPlan, items: ClaimCandidate[], uid: string, messagesFor: MessagesFor): ClaimPlan {
  if (items.length === 0) return plan;
  const top = [...items].sort((a, b) => candidateRank(b) - candidateRank(a)).slice(0, MAX_ALERT_ITEMS);
  const ids = top.map((c) => deliveryId(uid, c.posting.id));
  const messages = messagesFor(top, ids, alertEmailKey(uid, ids));
  if (messages.length === 0) return plan;
  const carriedIds = new Set(ids);
  const isCarried = (d: Delivery) => carriedIds.has(deliveryId(d.uid, d.jobId));
  return {
    ...plan,
    creates: plan.creates.filter((d) => !isCarried(d)),
    channelAlert: { carried: plan.creates.filter(isCarried), messages },
  };
}

type DeliveryFields = Pick<Delivery, 'status' | 'emailKey' | 'digestDate' | 'reason'> & Partial<Delivery>;
type DeliveryOf = (c: ClaimCandidate, fields: DeliveryFields) => Delivery;

/** A new delivery of the subscriber's, with the verdict that made it (score, reasons, the model's fit when judged). */
function deliveryOf(input: { subscriber: Pick<IndexedSubscriber, 'id' | 'mode'>; runId: string; now: Date; expireAt: Date }): DeliveryOf {
  return (c, fields) => ({
    uid: input.subscriber.id,
    jobId: c.posting.id,
    mode: input.subscriber.mode,
    score: c.score,
    reasons: c.reasons,
    ...(c.judgement ? { fit: c.judgement.fit, fitReason: c.judgement.fitReason, aiFallback: c.judgement.fallback } : {}),
    runId: input.runId,
    createdAt: input.now,
    sentAt: null,
    expireAt: input.expireAt,
    ...fields,
  });
}

/** A digest subscriber's new matches, queued for the digest they are due in, and their near misses counted for it. */
function planQueued(decision: ClaimDecision, digest: DigestDue, uid: string, delivery: DeliveryOf): ClaimPlan {
  const { period, dueAt } = digest;
  // The bucket a shard's flush asks for (shard.ts): the same for all of a subscriber's items.
  const bucket = shardBucketOf(uid);
  const queued = decision.queued.map((c) =>
    delivery(c, { status: 'queued', emailKey: null, digestDate: period, digestDueAt: dueAt, shardBucket: bucket, reason: null }),
  );
  const nearMisses =
    decision.nearMisses.length > 0
      ? { uid, day: period, jobs: decision.nearMisses.map((c) => ({ jobId: c.posting.id, kind: c.nearMiss! })) }
      : null;
  return {
    ...NOTHING_TO_CLAIM,
    creates: queued,
    nearMisses,
    queued: queued.length,
    planned: queued.map((d, i) => ({ delivery: d, posting: decision.queued[i].posting })),
  };
}
