import { Timestamp, type Firestore } from 'firebase-admin/firestore';
import type { Failpoint } from '../runtime/failpoints';
import { shardBucketOf } from '../runtime/shard';
import type { StoredPosting } from '../feeds/postings-collection';
import { composeWithinBudget } from '../mail/email-budget';
import { composeInWaves, WAVE_BYTES, type Composed } from '../mail/compose-in-waves';
import type { EmailPayload } from '../mail/email-payload';
import type { Candidate } from '../matching/match-postings';
import { alertEmailKey, digestEmailKey, newOutboxRow, outboxCollection, payloadOf, type OutboxRow } from '../outbox/outbox-row';
import type { Handoff, HandedRow, SealedSet } from '../outbox/handoff';
import { digestScheduleOf, isDigestMode, type Subscriber } from '../subscribers/subscriber';
import { currentPeriod, dueSlotFor } from '../subscribers/digest-schedule';
import type { IndexedSubscriber } from '../subscribers/match-index';
import { readMany } from '../store/create-documents';
import { rankOf } from '../matching/rank';
import { deliveryId, deliveryRef, readDeliveries, type Delivery } from '../ledger/delivery';
import { nearMissesRef, nearMissesUpdate } from '../ledger/near-misses';
import type { Judge, Judgement } from '../verdicts/judge-postings';
import { isLostRace } from '../store/firestore-errors';
import { claimInRounds } from './claim-in-rounds';
import { inSlices } from '../store/in-slices';
import { addDays } from '../store/timestamps';
import { commitGroupsAt, DELIVERY_BYTES, payloadBytes, type WriteGroup } from '../store/write-groups';

/** An alert lists a subscriber's best new matches of one cycle; past this, they are recorded as skipped. */
export const MAX_ALERT_ITEMS = 25;

/** A keyword match, with the model's judgement once the verdict stage has judged it (instant subscribers, stage on). */
export type ClaimCandidate = Candidate<StoredPosting, IndexedSubscriber> & { judgement?: Judgement };
/** A queued delivery a claim planned with the commit off (the dry run): not written, so the flush is handed it. */
export type PlannedDelivery = { delivery: Delivery; posting: StoredPosting };
export type ComposeAlert = (subscriber: IndexedSubscriber, items: ClaimCandidate[]) => Promise<EmailPayload>;

/**
 * `truncated`: the run's time budget ended the claims with subscribers not reached; their postings
 * stay pending, and `resumeAfter` is the last subscriber whose slice was started (where the next
 * run begins). Null when nothing was cut short. `gaveUp`: subscribers whose claims still lost a race
 * after MAX_CLAIM_ROUNDS; their postings stay pending and the next run claims them.
 */
export type ClaimStats = {
  matches: number;
  instantDeliveries: number;
  alertEmails: number;
  queued: number;
  skipped: number;
  /** Instant matches the model judged below the subscriber's threshold: closed `skipped` (not_a_fit), no email. */
  notAFit: number;
  truncated: boolean;
  resumeAfter: string | null;
  gaveUp: number;
  /** With the commit off only: the queued deliveries a run would have written (empty when it commits). */
  planned: PlannedDelivery[];
};

/** Where a digest subscriber's items queued now are due: the next digest not yet claimed (digest-schedule.ts). */
export type DigestDue = { dueAt: Date; period: string };

/**
 * For each digest subscriber among `subscribers`, where their items queued now are due. A
 * subscriber whose current period's slot has passed needs to know whether that period's digest is
 * claimed (its outbox row exists): one getAll for all of them; before the slot nothing is read.
 * A flush that claims it between this read and our write listed its items before ours existed:
 * ours stay due now, the next flush finds the period claimed and moves them to the next slot (a
 * row that does not list an item never holds it back, see flush-due-digests.ts) — late by one
 * period in that race, never lost.
 */
export async function readDigestDue(
  db: Firestore,
  input: { subscribers: IndexedSubscriber[]; now: Date; digestHourUtc: number },
): Promise<Map<string, DigestDue>> {
  const scheduled = input.subscribers.flatMap((subscriber) => {
    const schedule = digestScheduleOf(subscriber, input.digestHourUtc);
    return schedule ? [{ uid: subscriber.id, schedule, current: currentPeriod(schedule, input.now) }] : [];
  });
  const asking = scheduled.filter((s) => s.current.slotPassed);
  const rows = await readMany(
    db,
    asking.map((s) => outboxCollection(db).doc(digestEmailKey(s.uid, s.current.period))),
  );
  const claimed = new Set(asking.filter((_, i) => rows[i].exists).map((s) => s.uid));
  return new Map(scheduled.map((s) => [s.uid, dueSlotFor(s.schedule, input.now, claimed.has(s.uid))]));
}

type ClaimContext = {
  db: Firestore;
  failpoint: Failpoint;
  composeAlert: ComposeAlert;
  judge: Judge | null;
  runId: string;
  now: Date;
  expireAt: Date;
  digestHourUtc: number;
  commit: boolean;
  handoff: Handoff | null;
  waveBytes: number;
  unreached: (uid: string, posting: StoredPosting) => boolean;
};

/**
 * Turns matches into ledger lines: one `deliveries/{uid}_{jobId}` create() per new pair, and for
 * an instant subscriber the alert's outbox row in the same batch.
 *   instant → `sending` (top MAX_ALERT_ITEMS; the rest `skipped`), with `emails/alert_…`
 *   daily   → `queued` for the digest
 * Pairs that may exist are read first (getAll) and left alone; the create() is the check, so of
 * two runs claiming the same pair exactly one lands, and the other re-reads and re-plans that
 * subscriber (per subscriber, all or nothing for the alert).
 *
 * With `commit: false` (the dry run) it reads and plans exactly the same — the alert cap, the
 * email's byte budget, the digest day — and writes nothing: every plan counts as landed, and the
 * queued deliveries come back in `planned` for the flush to see.
 */
export async function claimDeliveries(
  deps: {
    db: Firestore;
    composeAlert: ComposeAlert;
    outOfTime: () => boolean;
    failpoint?: Failpoint;
    /** The run's verdict stage, when it is on: instant subscribers' new matches are judged before the claim. */
    judge?: Judge | null;
    /**
     * The run's sender for the rows it creates (handoff.ts): alerts are then created leased and
     * sealed into their provider batches, and sent as they land. Without it they are created
     * `pending`, for the dispatcher.
     */
    handoff?: Handoff | null;
  },
  input: {
    candidates: ClaimCandidate[];
    runId: string;
    now: Date;
    retentionDays: number;
    digestHourUtc: number;
    /** Where a run stopped by its budget left off: subscribers after this uid go first. */
    resumeAfter?: string | null;
    /** Pairs earlier runs claimed in full (claim-cursor.ts): left out without a read. */
    done?: (uid: string, posting: StoredPosting) => boolean;
    /** Pairs of those postings that no run reached yet (claim-cursor.ts): created without a read first. */
    unreached?: (uid: string, posting: StoredPosting) => boolean;
    subscribersPerSlice?: number;
    /** The email bodies a slice composes before it writes them (WAVE_BYTES by default; tests make it small). */
    waveBytes?: number;
    /** Off: plan only, write nothing (the dry run). On by default. */
    commit?: boolean;
  },
): Promise<ClaimStats> {
  const stats: ClaimStats = {
    matches: input.candidates.filter((c) => !c.nearMiss).length,
    instantDeliveries: 0,
    alertEmails: 0,
    queued: 0,
    skipped: 0,
    notAFit: 0,
    truncated: false,
    resumeAfter: null,
    gaveUp: 0,
    planned: [],
  };
  const ctx: ClaimContext = {
    db: deps.db,
    failpoint: deps.failpoint ?? (async () => {}),
    composeAlert: deps.composeAlert,
    judge: deps.judge ?? null,
    runId: input.runId,
    now: input.now,
    expireAt: addDays(input.now, input.retentionDays),
    digestHourUtc: input.digestHourUtc,
    commit: input.commit ?? true,
    handoff: (input.commit ?? true) ? (deps.handoff ?? null) : null,
    waveBytes: input.waveBytes ?? WAVE_BYTES,
    unreached: input.unreached ?? (() => false),
  };
  const done = input.done ?? (() => false);
  const left = input.candidates.filter((c) => !done(c.subscriber.id, c.posting));
  const bySubscriber = inResumeOrder(groupBySubscriber(left), input.resumeAfter ?? null);
  // Out of time, a slice is not started: the next run matches the same postings again, starts
  // after the last slice started here, and leaves out the pairs the cursor says were claimed here.
  let lastStarted: string | null = null;
  await inSlices(
    bySubscriber,
    async (slice) => {
      if (deps.outOfTime()) return void (stats.truncated = true);
      lastStarted = slice[slice.length - 1][0].subscriber.id;
      await claimSlice(ctx, slice, stats);
    },
    input.subscribersPerSlice,
  );
  if (stats.truncated) stats.resumeAfter = lastStarted ?? input.resumeAfter ?? null;
  return stats;
}

/** Subscribers by uid, starting after `resumeAfter` and wrapping around to those before it. */
function inResumeOrder(groups: Map<string, ClaimCandidate[]>, resumeAfter: string | null): ClaimCandidate[][] {
  const uids = [...groups.keys()].sort();
  const start = resumeAfter === null ? 0 : uids.findIndex((uid) => uid > resumeAfter);
  const ordered = start <= 0 ? uids : [...uids.slice(start), ...uids.slice(0, start)];
  return ordered.map((uid) => groups.get(uid)!);
}

async function claimSlice(ctx: ClaimContext, groups: ClaimCandidate[][], stats: ClaimStats): Promise<void> {
  // A posting this run stored has no delivery yet, unless a run racing us claims it right now,
  // and then our create() loses and the next round reads. So does a pair the claim cursor says no
  // run reached yet. The first round reads only the other pairs (a run that stopped or crashed
  // halfway may have claimed some); a subscriber that lost a race is read whole.
  let firstRound = true;
  const { gaveUp } = await claimInRounds(groups, async (pending) => {
    const first = firstRound;
    firstRound = false;
    const unclaimed = (c: ClaimCandidate) => c.posting.runId === ctx.runId || ctx.unreached(c.subscriber.id, c.posting);
    // A near miss is never a delivery: there is nothing to read for it.
    const mayExist = (c: ClaimCandidate) => !c.nearMiss && (!first || !unclaimed(c));
    const [existing, digestDue] = await Promise.all([
      readDeliveries(
        ctx.db,
        pending.flatMap((items) => items.filter(mayExist).map(idOf)),
      ),
      readDigestDue(ctx.db, {
        subscribers: pending.map((items) => items[0].subscriber),
        now: ctx.now,
        digestHourUtc: ctx.digestHourUtc,
      }),
    ]);
    const fresh = await Promise.all(
      pending.map((items) =>
        judgeInstant(
          ctx,
          items.filter((c) => !existing.get(idOf(c))?.exists),
        ),
      ),
    );
    // The slice's alerts are composed, written and handed over a wave at a time (compose-in-waves.ts):
    // its memory is a wave of email bodies, however many subscribers it plans.
    const lost: ClaimCandidate[][] = [];
    const waves = composeInWaves(
      fresh,
      (items, i) => planSubscriber(ctx, items, digestDue.get(pending[i][0].subscriber.id) ?? null),
      (plan) => plan.alert?.row.payload ?? null,
      ctx.waveBytes,
    );
    let held: Composed<SubscriberPlan>[] = [];
    for await (const wave of waves) {
      const written = await commitWave(ctx, [...held, ...wave.items], stats, { holdOpenSet: !wave.last });
      held = written.held;
      for (const i of written.lost) lost.push(pending[i]);
    }
    return lost;
  });
  stats.gaveUp += gaveUp.length;
}

/**
 * One wave of a slice's subscriber plans, written: the alerts (sealed into their provider batches
 * when the run has a sender) and every other write. The alerts that landed go to the sender at
 * once, while the next wave is composed. With `holdOpenSet` (more waves to come), the subscribers
 * of the last set, if it is not full, are held back whole and written with the next wave, so the
 * cut between waves does not cut a provider request short. Counts what landed; returns the
 * subscribers (by their index in the round) any of whose writes lost a race, to be re-read and
 * re-planned whole, and those held back.
 */
async function commitWave(
  ctx: ClaimContext,
  wave: Composed<SubscriberPlan>[],
  stats: ClaimStats,
  options: { holdOpenSet: boolean },
): Promise<{ lost: number[]; held: Composed<SubscriberPlan>[] }> {
  const { groups: alerts, heldBack } = alertWrites(
    ctx,
    wave.flatMap(({ index, result: plan }) => (plan.alert ? [{ ...plan.alert, subscriber: index }] : [])),
    options,
  );
  const writing = wave.filter(({ index }) => !heldBack.has(index));
  const writes = [
    ...alerts.map(({ write, subscribers }) => ({ write, subscribers })),
    ...writing.flatMap(({ index, result: plan }) => plan.writes.map((write) => ({ write, subscribers: [index] }))),
  ];
  const committed = ctx.commit
    ? await commitPlans(
        ctx,
        writes.map((w) => w.write),
      )
    : writes.map(() => PLANNED);
  const lostSubscribers = new Set(writes.flatMap((w, j) => (committed[j] ? [] : w.subscribers)));
  if (ctx.handoff)
    await ctx.handoff.offer(
      alerts.flatMap(({ set }, j) => (set && committed[j] ? [{ set, writtenAt: committed[j] }] : [])),
      'claim',
    );
  for (const { index, result: plan } of writing) {
    if (lostSubscribers.has(index)) continue;
    stats.instantDeliveries += plan.sending;
    stats.alertEmails += plan.sending > 0 ? 1 : 0;
    stats.queued += plan.queued;
    stats.skipped += plan.skipped;
    stats.notAFit += plan.notAFit;
    if (!ctx.commit) stats.planned.push(...plan.planned);
  }
  return { lost: [...lostSubscribers], held: wave.filter(({ index }) => heldBack.has(index)) };
}

/**
 * A subscriber's claim as write groups: the first carries the alert's deliveries and its outbox
 * row (all or nothing: at-most-once), the rest are independent creates in chunks (queued items,
 * items over the alert cap), since a busy day can bring one subscriber more than a batch holds.
 * A subscriber any of whose groups lost a race is re-read and re-planned whole.
 */
type SubscriberPlan = {
  /** The alert's deliveries and its row, written together (alertWrites); the other writes stand alone. */
  alert: PlannedAlert | null;
  writes: WriteGroup[];
  sending: number;
  queued: number;
  /** Closed without an email: over the alert cap, or judged not a fit (counted in both). */
  skipped: number;
  notAFit: number;
  planned: PlannedDelivery[];
};

/**
 * An instant subscriber's new matches, each with the model's judgement when the stage is on:
 * scored in the run that matches, before the claim (docs/verdicts.md). A pair is scored once
 * (matches/{uid}_{jobId}), so a round re-planned after a lost race asks nothing again. Daily
 * subscribers are judged at the flush, one call per queued item.
 */
async function judgeInstant(ctx: ClaimContext, fresh: ClaimCandidate[]): Promise<ClaimCandidate[]> {
  if (!ctx.judge || fresh.length === 0 || fresh[0].subscriber.mode !== 'instant') return fresh;
  const judged = await ctx.judge.judge(
    fresh[0].subscriber,
    fresh.map((c) => c.posting),
  );
  return fresh.map((c) => ({ ...c, judgement: judged.get(c.posting.id) }));
}

async function commitPlans(ctx: ClaimContext, writes: WriteGroup[]): Promise<(Timestamp | null)[]> {
  await ctx.failpoint('before-delivery-commit');
  return commitGroupsAt(ctx.db, writes, isLostRace);
}

/** A dry run's stand-in for a commit time: every plan counts as landed, and nothing is fenced by it. */
const PLANNED = Timestamp.fromMillis(0);

type PlannedAlert = { emailKey: string; row: OutboxRow; sending: Delivery[] };

/**
 * The alerts' write groups: each alert's deliveries with its row, all or nothing (at-most-once
 * starts with the row existing before any send). Handed to the run's sender, alerts are created
 * leased, several to a group — one sealed provider batch, created whole or not at all, so a set
 * that loses a race (a concurrent run claimed one of its pairs) re-plans all its subscribers.
 * With `holdOpenSet`, a last set that is not full is not written: its subscribers come back in
 * `heldBack`, to be planned into the next wave's sets.
 */
function alertWrites(
  ctx: ClaimContext,
  alerts: (PlannedAlert & { subscriber: number })[],
  options: { holdOpenSet: boolean },
): {
  groups: { write: WriteGroup; subscribers: number[]; set: SealedSet<HandedRow & PlannedAlert & { subscriber: number }> | null }[];
  heldBack: Set<number>;
} {
  const create = (batch: FirebaseFirestore.WriteBatch, alert: PlannedAlert, row: OutboxRow) => {
    for (const d of alert.sending) batch.create(deliveryRef(ctx.db, d.uid, d.jobId), d);
    batch.create(outboxCollection(ctx.db).doc(alert.emailKey), row);
  };
  const bytesOf = (alert: PlannedAlert) => alert.sending.length * DELIVERY_BYTES + payloadBytes(payloadOf(alert.row));
  if (!ctx.handoff)
    return {
      groups: alerts.map((alert) => ({
        write: { size: alert.sending.length + 1, bytes: bytesOf(alert), apply: (batch) => create(batch, alert, alert.row) },
        subscribers: [alert.subscriber],
        set: null,
      })),
      heldBack: new Set(),
    };
  const sets = ctx.handoff.seal(alerts.map((alert) => ({ ...alert, writes: alert.sending.length + 1 })));
  const held = options.holdOpenSet && sets.at(-1)?.open ? sets.pop()! : null;
  return {
    groups: sets.map((set) => ({
      write: {
        size: set.members.reduce((n, a) => n + a.writes, 0),
        bytes: set.members.reduce((n, a) => n + bytesOf(a), set.sealBytes),
        apply: (batch) => set.members.forEach((alert) => create(batch, alert, set.stored(alert))),
      },
      subscribers: set.members.map((a) => a.subscriber),
      set,
    })),
    heldBack: new Set(held?.members.map((a) => a.subscriber) ?? []),
  };
}

/** Creates per group beyond the alert's own: far under a batch's 500 writes, so groups of several subscribers still pack together. */
const CREATES_PER_GROUP = 100;

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

async function planSubscriber(ctx: ClaimContext, fresh: ClaimCandidate[], digest: DigestDue | null): Promise<SubscriberPlan> {
  if (fresh.length === 0) return { alert: null, writes: [], sending: 0, queued: 0, skipped: 0, notAFit: 0, planned: [] };
  const subscriber = fresh[0].subscriber;
  const decision = decideClaim({ fresh, mode: subscriber.mode, digest });
  const delivery = (
    c: ClaimCandidate,
    fields: Pick<Delivery, 'status' | 'emailKey' | 'digestDate' | 'reason'> & Partial<Delivery>,
  ): Delivery => ({
    uid: subscriber.id,
    jobId: c.posting.id,
    mode: subscriber.mode,
    score: c.score,
    reasons: c.reasons,
    ...(c.judgement ? { fit: c.judgement.fit, fitReason: c.judgement.fitReason, aiFallback: c.judgement.fallback } : {}),
    runId: ctx.runId,
    createdAt: ctx.now,
    sentAt: null,
    expireAt: ctx.expireAt,
    ...fields,
  });

  if (subscriber.mode === 'feed') {
    // Each create is its own check, as for any delivery: a pair published twice is one entry.
    const published = decision.published.map((c) =>
      delivery(c, { status: 'sent', emailKey: null, digestDate: null, reason: null, sentAt: ctx.now }),
    );
    return { alert: null, writes: createsInChunks(ctx, published), sending: 0, queued: 0, skipped: 0, notAFit: 0, planned: [] };
  }

  if (decision.digest) {
    const { period, dueAt } = decision.digest;
    // The bucket a shard's flush asks for (shard.ts): the same for all of a subscriber's items.
    const bucket = shardBucketOf(subscriber.id);
    const queued = decision.queued.map((c) =>
      delivery(c, { status: 'queued', emailKey: null, digestDate: period, digestDueAt: dueAt, shardBucket: bucket, reason: null }),
    );
    const planned = queued.map((d, i) => ({ delivery: d, posting: decision.queued[i].posting }));
    return {
      alert: null,
      writes: [...createsInChunks(ctx, queued), ...nearMissWrites(ctx, subscriber.id, decision)],
      sending: 0,
      queued: queued.length,
      skipped: 0,
      notAFit: 0,
      planned,
    };
  }

  const notAFit = decision.notAFit.map((c) => delivery(c, { status: 'skipped', emailKey: null, digestDate: null, reason: 'not_a_fit' }));
  if (decision.alert.length === 0)
    return {
      alert: null,
      writes: createsInChunks(ctx, notAFit),
      sending: 0,
      queued: 0,
      skipped: notAFit.length,
      notAFit: notAFit.length,
      planned: [],
    };

  // An alert too heavy for its row (postings at every length cap) carries the best that fit; the rest are capped.
  const { payload, shown } = await composeWithinBudget(decision.alert, (items) => ctx.composeAlert(subscriber, items));
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
    runId: ctx.runId,
    now: ctx.now,
    expireAt: ctx.expireAt,
  });
  return {
    alert: { emailKey, row, sending },
    writes: createsInChunks(ctx, capped),
    sending: top.length,
    queued: 0,
    skipped: capped.length,
    notAFit: notAFit.length,
    planned: [],
  };
}

/**
 * A daily subscriber's near misses, merged into nearMisses/{uid}_{digestDate} (a set: counting
 * them again on a retry or a re-planned round changes nothing). Not a delivery: nothing is sent.
 */
function nearMissWrites(ctx: ClaimContext, uid: string, decision: ClaimDecision): WriteGroup[] {
  if (decision.nearMisses.length === 0 || !decision.digest) return [];
  const period = decision.digest.period;
  const update = nearMissesUpdate({
    uid,
    day: period,
    jobs: decision.nearMisses.map((c) => ({ jobId: c.posting.id, kind: c.nearMiss! })),
    expireAt: ctx.expireAt,
  });
  return [
    {
      size: 1,
      bytes: 200 + decision.nearMisses.length * 20,
      apply: (batch) => batch.set(nearMissesRef(ctx.db, uid, period).withConverter(null), update, { merge: true }),
    },
  ];
}

/** Deliveries that stand alone (each create is its own check), a chunk per group. */
function createsInChunks(ctx: ClaimContext, deliveries: Delivery[]): WriteGroup[] {
  const groups: WriteGroup[] = [];
  for (let i = 0; i < deliveries.length; i += CREATES_PER_GROUP) {
    const chunk = deliveries.slice(i, i + CREATES_PER_GROUP);
    groups.push({
      size: chunk.length,
      bytes: chunk.length * DELIVERY_BYTES,
      apply(batch) {
        for (const d of chunk) batch.create(deliveryRef(ctx.db, d.uid, d.jobId), d);
      },
    });
  }
  return groups;
}

const idOf = (c: ClaimCandidate) => deliveryId(c.subscriber.id, c.posting.id);

function groupBySubscriber(candidates: ClaimCandidate[]): Map<string, ClaimCandidate[]> {
  const groups = new Map<string, ClaimCandidate[]>();
  for (const c of candidates) {
    const list = groups.get(c.subscriber.id) ?? [];
    list.push(c);
    groups.set(c.subscriber.id, list);
  }
  return groups;
}
