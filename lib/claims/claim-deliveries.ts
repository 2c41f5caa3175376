import { Timestamp, type Firestore } from 'firebase-admin/firestore';
import type { Failpoint } from '../runtime/failpoints';
import type { StoredPosting } from '../feeds/postings-collection';
import { composeWithinBudget } from '../mail/email-budget';
import { composeInBatches, COMPOSE_BATCH_BYTES, type Composed } from '../mail/compose-in-batches';
import type { EmailPayload } from '../mail/email-payload';
import type { RunSender } from '../outbox/run-sender';
import type { IndexedSubscriber } from '../subscribers/match-index';
import { deliveryId, readDeliveries } from '../ledger/delivery';
import type { Judge } from '../verdicts/judge-postings';
import { isLostRace } from '../store/firestore-errors';
import { inBatches } from '../store/in-batches';
import { addDays } from '../store/timestamps';
import { commitAtomicWritesAt, type AtomicWrite } from '../store/atomic-writes';
import { claimInAttempts } from './claim-in-attempts';
import {
  decideClaim,
  NOTHING_TO_CLAIM,
  planClaim,
  type ClaimCandidate,
  type ClaimPlan,
  type DigestDue,
  type MessagesFor,
  type PlannedDelivery,
} from './claim-plan';
import { alertWrites, claimWrites } from './claim-writes';
import { readDigestDue } from './digest-due';
import type { SubscriberMessages, SubscriberMessagesOf } from '../messages/subscriber-messages';

export { MAX_ALERT_ITEMS, type ClaimCandidate, type PlannedDelivery } from './claim-plan';

export type ComposeAlert = (subscriber: IndexedSubscriber, items: ClaimCandidate[]) => Promise<EmailPayload>;
/** A subscriber's channel messages (subscriber-messages.ts); null for a subscriber with no channel. */
export type { SubscriberMessagesOf } from '../messages/subscriber-messages';

/**
 * `truncated`: the run's time budget ended the claims with subscribers not reached; their postings
 * stay pending, and `resumeAfter` is the last subscriber whose subscriber batch was started (where the next
 * run begins). Null when nothing was cut short. `gaveUp`: subscribers whose claims still lost a race
 * after MAX_CLAIM_ATTEMPTS; their postings stay pending and the next run claims them.
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

type ClaimContext = {
  db: Firestore;
  failpoint: Failpoint;
  composeAlert: ComposeAlert;
  channelMessages: SubscriberMessagesOf;
  judge: Judge | null;
  runId: string;
  now: Date;
  expireAt: Date;
  digestHourUtc: number;
  commit: boolean;
  runSender: RunSender | null;
  composeBatchBytes: number;
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
    /** Subscribers' channel messages: their instant channels' alerts are planned with their deliveries; none without it. */
    channelMessages?: SubscriberMessagesOf;
    outOfTime: () => boolean;
    failpoint?: Failpoint;
    /** The run's verdict stage, when it is on: instant subscribers' new matches are judged before the claim. */
    judge?: Judge | null;
    /**
     * The run's sender for the rows it creates (run-sender.ts): alerts are then created leased and
     * packed into their send batches, and sent as they land. Without it they are created
     * `pending`, for the dispatcher.
     */
    runSender?: RunSender | null;
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
    subscribersPerBatch?: number;
    /** The email bodies a subscriber batch composes before it writes them (COMPOSE_BATCH_BYTES by default; tests make it small). */
    composeBatchBytes?: number;
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
    channelMessages: deps.channelMessages ?? (() => null),
    judge: deps.judge ?? null,
    runId: input.runId,
    now: input.now,
    expireAt: addDays(input.now, input.retentionDays),
    digestHourUtc: input.digestHourUtc,
    commit: input.commit ?? true,
    runSender: (input.commit ?? true) ? (deps.runSender ?? null) : null,
    composeBatchBytes: input.composeBatchBytes ?? COMPOSE_BATCH_BYTES,
    unreached: input.unreached ?? (() => false),
  };
  const done = input.done ?? (() => false);
  const left = input.candidates.filter((c) => !done(c.subscriber.id, c.posting));
  const bySubscriber = inResumeOrder(candidatesBySubscriber(left), input.resumeAfter ?? null);
  // Out of time, a subscriber batch is not started: the next run matches the same postings again,
  // starts after the last batch started here, and leaves out the pairs the cursor says were claimed here.
  let lastStarted: string | null = null;
  await inBatches(
    bySubscriber,
    async (batch) => {
      if (deps.outOfTime()) return void (stats.truncated = true);
      lastStarted = batch[batch.length - 1][0].subscriber.id;
      await claimSubscriberBatch(ctx, batch, stats);
    },
    input.subscribersPerBatch,
  );
  if (stats.truncated) stats.resumeAfter = lastStarted ?? input.resumeAfter ?? null;
  return stats;
}

/** Subscribers by uid, starting after `resumeAfter` and wrapping around to those before it. */
function inResumeOrder(bySubscriber: Map<string, ClaimCandidate[]>, resumeAfter: string | null): ClaimCandidate[][] {
  const uids = [...bySubscriber.keys()].sort();
  const start = resumeAfter === null ? 0 : uids.findIndex((uid) => uid > resumeAfter);
  const ordered = start <= 0 ? uids : [...uids.slice(start), ...uids.slice(0, start)];
  return ordered.map((uid) => bySubscriber.get(uid)!);
}

/**
 * A batch of subscribers' claims: read which of their pairs exist and where their digests are due,
 * judge the instant ones, decide and plan each subscriber (claim-plan.ts, pure), then write
 * (claim-writes.ts). Subscribers whose writes lost a race are read and planned again, up to
 * MAX_CLAIM_ATTEMPTS times (claim-in-attempts.ts).
 */
async function claimSubscriberBatch(ctx: ClaimContext, subscribers: ClaimCandidate[][], stats: ClaimStats): Promise<void> {
  // A posting this run stored has no delivery yet, unless a run racing us claims it right now,
  // and then our create() loses and the next attempt reads. So does a pair the claim cursor says no
  // run reached yet. The first attempt reads only the other pairs (a run that stopped or crashed
  // halfway may have claimed some); a subscriber that lost a race is read whole.
  let firstAttempt = true;
  const { gaveUp } = await claimInAttempts(subscribers, async (pending) => {
    const first = firstAttempt;
    firstAttempt = false;
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
    // The batch's alerts are composed, written and handed over a compose batch at a time
    // (compose-in-batches.ts): its memory is one compose batch of email bodies, however many
    // subscribers it plans.
    const lost: ClaimCandidate[][] = [];
    const composedBatches = composeInBatches(
      fresh,
      (items, i) => planSubscriber(ctx, items, digestDue.get(pending[i][0].subscriber.id) ?? null),
      (plan) => plan.alert?.row.payload ?? null,
      ctx.composeBatchBytes,
    );
    let held: Composed<ClaimPlan>[] = [];
    for await (const composed of composedBatches) {
      const written = await commitComposedBatch(ctx, [...held, ...composed.items], stats, { holdOpenBatch: !composed.last });
      held = written.held;
      for (const i of written.lost) lost.push(pending[i]);
    }
    return lost;
  });
  stats.gaveUp += gaveUp.length;
}

/**
 * One compose batch of a subscriber batch's plans, written: the alerts (packed into their send
 * batches when the run has a sender) and every other write. The alerts that landed go to the sender
 * at once, while the next compose batch is composed. With `holdOpenBatch` (more to come), the
 * subscribers of the last send batch, if it is not full, are held back whole and written with the
 * next compose batch, so the cut between compose batches does not cut a provider request short.
 * Counts what landed; returns the subscribers (by their index in the attempt) any of whose writes
 * lost a race, to be re-read and
 * re-planned whole, and those held back.
 */
async function commitComposedBatch(
  ctx: ClaimContext,
  composed: Composed<ClaimPlan>[],
  stats: ClaimStats,
  options: { holdOpenBatch: boolean },
): Promise<{ lost: number[]; held: Composed<ClaimPlan>[] }> {
  const { atomicWrites: alerts, heldBack } = alertWrites(
    ctx.db,
    ctx.runSender,
    composed.flatMap(({ index, result: plan }) => (plan.alert ? [{ ...plan.alert, subscriber: index }] : [])),
    options,
  );
  const writing = composed.filter(({ index }) => !heldBack.has(index));
  const writes = [
    ...alerts.map(({ write, subscribers }) => ({ write, subscribers })),
    ...writing.flatMap(({ index, result: plan }) =>
      claimWrites(ctx.db, plan, ctx.expireAt).map((write) => ({ write, subscribers: [index] })),
    ),
  ];
  const committed = ctx.commit
    ? await commitPlans(
        ctx,
        writes.map((w) => w.write),
      )
    : writes.map(() => PLANNED);
  const lostSubscribers = new Set(writes.flatMap((w, j) => (committed[j] ? [] : w.subscribers)));
  if (ctx.runSender)
    await ctx.runSender.offer(
      alerts.flatMap(({ sendBatch }, j) => (sendBatch && committed[j] ? [{ sendBatch, writtenAt: committed[j] }] : [])),
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
  return { lost: [...lostSubscribers], held: composed.filter(({ index }) => heldBack.has(index)) };
}

/**
 * An instant subscriber's new matches, each with the model's judgement when the stage is on:
 * scored in the run that matches, before the claim (docs/verdicts.md). A pair is scored once
 * (matches/{uid}_{jobId}), so an attempt re-planned after a lost race asks nothing again. Daily
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

/**
 * A subscriber's claim: decided (decideClaim), the alert composed when there is one, then planned
 * (planClaim). The run and the dry run plan alike; only the dry run writes nothing.
 */
async function planSubscriber(ctx: ClaimContext, fresh: ClaimCandidate[], digest: DigestDue | null): Promise<ClaimPlan> {
  if (fresh.length === 0) return NOTHING_TO_CLAIM;
  const subscriber = fresh[0].subscriber;
  const decision = decideClaim({ fresh, mode: subscriber.mode, digest });
  const composed =
    decision.alert.length > 0 ? await composeWithinBudget(decision.alert, (items) => ctx.composeAlert(subscriber, items)) : null;
  const messagesFor = alertMessagesFor(ctx.channelMessages(subscriber));
  return planClaim({ decision, subscriber, composed, runId: ctx.runId, now: ctx.now, expireAt: ctx.expireAt, messagesFor });
}

/** The claim's view of a subscriber's channel messages: alerts of claim candidates, with the verdict that made each. */
function alertMessagesFor(messages: SubscriberMessages | null): MessagesFor | undefined {
  if (!messages) return undefined;
  return (items, deliveryIds, setKey) =>
    messages.alert(
      items.map((c) => ({ posting: c.posting, score: c.score, reasons: c.reasons, fit: c.judgement?.fit ?? null })),
      deliveryIds,
      setKey,
    );
}

async function commitPlans(ctx: ClaimContext, writes: AtomicWrite[]): Promise<(Timestamp | null)[]> {
  await ctx.failpoint('before-delivery-commit');
  return commitAtomicWritesAt(ctx.db, writes, isLostRace);
}

/** A dry run's stand-in for a commit time: every plan counts as landed, and nothing is fenced by it. */
const PLANNED = Timestamp.fromMillis(0);

const idOf = (c: ClaimCandidate) => deliveryId(c.subscriber.id, c.posting.id);

function candidatesBySubscriber(candidates: ClaimCandidate[]): Map<string, ClaimCandidate[]> {
  const bySubscriber = new Map<string, ClaimCandidate[]>();
  for (const c of candidates) {
    const list = bySubscriber.get(c.subscriber.id) ?? [];
    list.push(c);
    bySubscriber.set(c.subscriber.id, list);
  }
  return bySubscriber;
}
