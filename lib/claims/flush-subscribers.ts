import type { StoredPosting } from '../feeds/postings-collection';
import type { FilteredOut } from '../mail/compose-email';
import { composeInBatches } from '../mail/compose-in-batches';
import { composeWithinBudget } from '../mail/email-budget';
import { hasMinPay } from '../pay/minimum-pay';
import type { Due } from '../ledger/due-items';
import { moveQueuedItems } from '../ledger/move-queued-items';
import { readNearMisses } from '../ledger/near-misses';
import { rereadDueItems } from '../ledger/reread-due-items';
import { digestEmailKey } from '../outbox/outbox-row';
import { deliveryId } from '../ledger/delivery';
import type { PlannedMessage } from '../messages/plan-messages';
import { settleDigestItems } from '../outbox/settle-digest-items';
import { readMany } from '../store/create-documents';
import { digestScheduleOf, isDigestMode, subscribersCollection, type Subscriber } from '../subscribers/subscriber';
import type { Judgement } from '../verdicts/judge-postings';
import { claimInAttempts } from './claim-in-attempts';
import { fitDigest, planDigest, sortDue, type FlushPlan, type ToDecide } from './digest-plan';
import { readDigestRows } from './digest-rows';
import { commitDigests, type ComposedDigest } from './digest-writes';
import type { FlushContext } from './flush-context';

/** What flushing some subscribers' digests came to: what landed, and the subscribers still losing races after MAX_CLAIM_ATTEMPTS. */
export type Flushed = { claimed: number; items: number; skippedSubscribers: number; notAFit: number; gaveUp: number };

/**
 * The digests of a batch of subscribers: read what decides them, sort the due items (sortDue),
 * move on and mark what needs it, judge, decide each digest (planDigest), then compose, write and
 * hand them over (compose-in-batches.ts bounds the bodies in memory). A subscriber any of whose
 * writes lost a race is read again and decided again, up to MAX_CLAIM_ATTEMPTS times (claim-in-attempts.ts).
 */
export async function flushSubscribers(ctx: FlushContext, due: Due[]): Promise<Flushed> {
  const flushed: Flushed = { claimed: 0, items: 0, skippedSubscribers: 0, notAFit: 0, gaveUp: 0 };
  let firstAttempt = true;
  const { gaveUp } = await claimInAttempts(due, async (pending) => {
    // After a lost race the items are read again: a claim may have added some, an opt-out closed some.
    const current = firstAttempt ? pending : await rereadDueItems(ctx.db, pending, ctx.now);
    firstAttempt = false;
    const sorted = sortDue({ due: current, ...(await readWhatDecides(ctx, current)), now: ctx.now });
    if (ctx.commit) await moveQueuedItems(ctx.db, sorted.moves);
    const judged = await judgeDigests(ctx, sorted.toDecide);
    const plans = sorted.toDecide.map((toDecide) =>
      planDigest(toDecide, { maxItems: ctx.maxItems, judged: ctx.judge !== null, judgements: judged.verdicts.get(toDecide.due.uid) }),
    );
    // Items an earlier digest listed, whose marks did not land after it was final (a crash between the two): mark them now.
    if (ctx.commit) await settleDigestItems(ctx.db, sorted.settles);
    const [postings, nearMisses] = await Promise.all([postingsOf(ctx, plans, judged.postings), countNearMisses(ctx, plans)]);
    // Composed, written and handed over a compose batch at a time (compose-in-batches.ts): the flush holds one batch of digests, not all of them.
    const lost = new Set<string>();
    const composedBatches = composeInBatches(
      plans,
      (plan, i) => composeDigestRow(ctx, plan, postings, nearMisses[i]),
      ({ row }) => row?.payload ?? null,
      ctx.composeBatchBytes,
    );
    let held: ComposedDigest[] = [];
    for await (const composed of composedBatches) {
      const landed = await commitDigests(ctx, [...held, ...composed.items.map((c) => c.result)], { holdOpenBatch: !composed.last });
      held = landed.held;
      flushed.claimed += landed.claimed;
      flushed.items += landed.items;
      flushed.skippedSubscribers += landed.skippedSubscribers;
      flushed.notAFit += landed.notAFit;
      for (const uid of landed.lost) lost.add(uid);
    }
    // Someone changed one of these items (an opt-out, a concurrent flush) or claimed the digest: look again.
    return current.filter((d) => lost.has(d.uid));
  });
  return { ...flushed, gaveUp: gaveUp.length };
}

/**
 * What decides these subscribers' digests: the subscribers (one getAll), their schedules and the
 * period each would be claimed for, and the digest rows that can list their due items (digest-rows.ts).
 */
async function readWhatDecides(ctx: FlushContext, due: Due[]) {
  const snaps = await readMany(
    ctx.db,
    due.map((d) => subscribersCollection(ctx.db).doc(d.uid)),
  );
  const subscribers = snaps.map((snap) => (snap.exists ? snap.data()! : undefined));
  const schedules = subscribers.map((subscriber) => (subscriber ? digestScheduleOf(subscriber, ctx.digestHourUtc) : null));
  // The period their latest slot falls in: the digest this flush claims for them.
  const periods = schedules.map((schedule) => (schedule ? ctx.periodNow(schedule) : null));
  const rows = await readDigestRows(ctx.db, due, { subscribers, schedules, periods, now: ctx.now, hourSince: await ctx.hourSince });
  return { subscribers, schedules, periods, rows };
}

/**
 * Daily subscribers are scored once, at the flush, over their queued items (docs/verdicts.md):
 * every active daily subscriber about to get a digest has its free items judged, one posting a
 * request. Their postings are read once here and reused to compose. A pair
 * already scored (an earlier attempt, run or retry) is read from matches/, never asked again.
 */
async function judgeDigests(
  ctx: FlushContext,
  toDecide: ToDecide[],
): Promise<{ verdicts: Map<string, Map<string, Judgement>>; postings: Map<string, StoredPosting> }> {
  const judge = ctx.judge;
  const verdicts = new Map<string, Map<string, Judgement>>();
  if (!judge) return { verdicts, postings: new Map() };
  const getsDigest = toDecide.filter(({ subscriber }) => subscriber?.status === 'active' && isDigestMode(subscriber.mode));
  const postings = await ctx.postings(getsDigest.flatMap(({ free }) => free.map((d) => d.jobId)));
  await Promise.all(
    getsDigest.map(async ({ due, free, subscriber }) => {
      const shortlisted = free.flatMap((d) => (postings.has(d.jobId) ? [postings.get(d.jobId)!] : []));
      verdicts.set(due.uid, await judge.judge(subscriber!, shortlisted));
    }),
  );
  return { verdicts, postings };
}

/** Postings for every planned digest in one getAll sweep (the verdicts are on the deliveries). */
async function postingsOf(ctx: FlushContext, plans: FlushPlan[], known: Map<string, StoredPosting>): Promise<Map<string, StoredPosting>> {
  const read = await ctx.postings(plans.flatMap((plan) => plan.top.map((d) => d.jobId)).filter((id) => !known.has(id)));
  return new Map([...known, ...read]);
}

type NearMissCounts = Omit<FilteredOut, 'minPay' | 'notAFit'>;

/**
 * The digest's near-miss line: how many of its keyword matches were left out, and why. The claims
 * counted the exclude and pay-minimum ones in nearMisses/{uid}_{day} (one getAll for the
 * digests composed together); the not-a-fit ones are this flush's own.
 */
async function countNearMisses(ctx: FlushContext, plans: FlushPlan[]): Promise<(NearMissCounts | null)[]> {
  // Without an exclude or a pay minimum there is nothing to have missed: no read for them.
  const sending = plans.filter(
    (plan) => plan.top.length > 0 && plan.subscriber && (plan.subscriber.excludes.length > 0 || hasMinPay(plan.subscriber.minPay)),
  );
  const docs =
    sending.length > 0
      ? await readNearMisses(
          ctx.db,
          sending.map((plan) => ({ uid: plan.uid, day: plan.period })),
        )
      : null;
  return plans.map((plan) => {
    const doc = docs?.get(plan.uid)?.data();
    return doc ? { excluded: doc.excluded.length, underMinBudget: doc.underMinBudget.length } : null;
  });
}

/** The digest's email, composed from the plan's items that fit one email, and its row (fitDigest); none when nothing is listed. */
async function composeDigestRow(
  ctx: FlushContext,
  plan: FlushPlan,
  postings: Map<string, StoredPosting>,
  nearMisses: NearMissCounts | null,
): Promise<ComposedDigest> {
  const { subscriber } = plan;
  if (plan.top.length === 0 || !subscriber) return { plan, row: null, messages: [] };
  const coverage = await ctx.coverage();
  const composed = await composeWithinBudget(plan.top, (top, leftOut) =>
    ctx.composeDigest({
      subscriber,
      items: top.flatMap((d) => {
        const posting = postings.get(d.jobId);
        return posting
          ? [
              {
                posting,
                score: d.score,
                reasons: d.reasons,
                fit: d.fit ?? null,
                fitReason: d.fitReason ?? null,
                aiFallback: d.aiFallback ?? null,
              },
            ]
          : [];
      }),
      moreCount: plan.moreCount + leftOut,
      day: plan.period,
      filteredOut: {
        excluded: nearMisses?.excluded ?? 0,
        underMinBudget: nearMisses?.underMinBudget ?? 0,
        notAFit: plan.notAFit,
        minPay: subscriber.minPay,
      },
      coverage,
    }),
  );
  const fitted = fitDigest(plan, composed, ctx);
  return { ...fitted, messages: digestMessages(ctx, fitted.plan, subscriber, postings) };
}

/** The digest's copies for the subscriber's digest channels: the items the email lists, keyed by the digest's own key. */
function digestMessages(
  ctx: FlushContext,
  plan: FlushPlan,
  subscriber: Subscriber,
  postings: Map<string, StoredPosting>,
): PlannedMessage[] {
  const messages = ctx.channelMessages(subscriber);
  if (!messages) return [];
  const listed = plan.top.filter((d) => postings.has(d.jobId));
  return messages.digest(
    listed.map((d) => ({ posting: postings.get(d.jobId)!, score: d.score, reasons: d.reasons, fit: d.fit ?? null })),
    listed.map((d) => deliveryId(plan.uid, d.jobId)),
    digestEmailKey(plan.uid, plan.period),
    plan.period,
    plan.moreCount,
  );
}
