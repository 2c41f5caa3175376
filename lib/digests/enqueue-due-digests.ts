import type { Firestore, QueryDocumentSnapshot } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import type { Failpoint } from '../cycle/failpoints';
import { ownsSubscriber, type Shard } from '../cycle/shard';
import { postingsCollection, type StoredPosting } from '../feeds/postings-collection';
import { RENDER_CONCURRENCY } from '../ledger/claim-deliveries';
import { claimInRounds } from '../ledger/claim-in-rounds';
import { inSlices } from '../ledger/in-slices';
import { readMany } from '../ledger/create-documents';
import { deliveriesCollection, deliveryId, readPages, writeDeliveries, type Delivery, type ReadPage } from '../ledger/delivery';
import { isLostRace } from '../ledger/firestore-errors';
import { addDays, utcDay } from '../ledger/timestamps';
import { commitGroups, DELIVERY_BYTES, payloadBytes, type WriteGroup } from '../ledger/write-groups';
import type { ScoredPosting } from '../mail/compose-email';
import type { EmailPayload } from '../mail/email-payload';
import { digestEmailKey, newOutboxRow, outboxCollection } from '../outbox/outbox-row';
import { subscribersCollection, type Subscriber } from '../subscribers/subscriber';

export type ComposeDigest = (input: {
  subscriber: Subscriber;
  items: ScoredPosting[];
  moreCount: number;
  day: string;
}) => Promise<EmailPayload>;

/**
 * `truncated`: the run's time budget ended the flush with pages still due; the next run goes on.
 * `gaveUp`: subscribers whose digest claim still lost a race after MAX_ROUNDS; still due next run.
 */
export type DigestStats = { due: number; claimed: number; skippedSubscribers: number; truncated: boolean; gaveUp: number };

/** Due pages listed per query (ids only); the flush walks them with a cursor until done or out of time. */
const DUE_PAGE = 5_000;
/** Rounds of re-planning after losing races to concurrent writers of the same pages (claims, opt-outs). */
const MAX_ROUNDS = 5;

type FlushContext = {
  db: Firestore;
  failpoint: Failpoint;
  composeDigest: ComposeDigest;
  day: string;
  now: Date;
  runId: string;
  maxItems: number;
  expireAt: Date;
};

/**
 * The daily flush's claim: from the first run at or after DIGEST_HOUR_UTC, each subscriber with
 * queued deliveries due gets one outbox row `digest_{uid}_{day}` carrying the top items by score.
 * Its create() *is* the check that today's digest has not been claimed, so later runs,
 * overlapping runs and retries all find the row and do nothing. The row and the pages whose
 * items it takes (`sending`) change in one batch, each page guarded by the version read;
 * lower-scored items beyond DIGEST_MAX_ITEMS are closed as `skipped` in the same write.
 */
export async function enqueueDueDigests(
  deps: { db: Firestore; composeDigest: ComposeDigest; outOfTime: () => boolean; failpoint?: Failpoint },
  input: {
    now: Date;
    runId: string;
    digestHourUtc: number;
    maxItems: number;
    retentionDays: number;
    duePageSize?: number;
    /** A shard's run flushes only its own subscribers' digests. */
    shard?: Shard;
  },
): Promise<DigestStats> {
  const { db } = deps;
  const stats: DigestStats = { due: 0, claimed: 0, skippedSubscribers: 0, truncated: false, gaveUp: 0 };
  if (input.now.getUTCHours() < input.digestHourUtc) return stats;
  const day = utcDay(input.now);
  const ctx: FlushContext = {
    ...deps,
    ...input,
    failpoint: deps.failpoint ?? (async () => {}),
    day,
    expireAt: addDays(input.now, input.retentionDays),
  };

  // Only ids, a page of the list at a time: the delivery pages themselves are read a slice at a
  // time, so memory stays flat however many subscribers are due. Claimed pages leave the range
  // (their pendingDigest moves past today), so the cursor never skips one still due.
  const query = deliveriesCollection(db).where('pendingDigest', '<=', day).orderBy('pendingDigest').select('uid', 'pendingDigest');
  const handled = new Set<string>();
  let cursor: QueryDocumentSnapshot | undefined;
  for (;;) {
    if (deps.outOfTime()) {
      stats.truncated = true;
      break;
    }
    const due = await (cursor ? query.startAfter(cursor) : query).limit(input.duePageSize ?? DUE_PAGE).get();
    if (due.empty) break;
    cursor = due.docs[due.docs.length - 1];
    // A subscriber whose pages straddle two lists is flushed from the first; the rest waits for tomorrow's digest.
    const pagesOf = new Map<string, string[]>();
    for (const doc of due.docs) {
      const uid: string = doc.get('uid');
      if (!ownsSubscriber(input.shard, uid) || (handled.has(uid) && !pagesOf.has(uid))) continue;
      const pages = pagesOf.get(uid);
      if (pages) pages.push(doc.id);
      else pagesOf.set(uid, [doc.id]);
    }
    for (const uid of pagesOf.keys()) handled.add(uid);
    stats.due += pagesOf.size;
    await inSlices([...pagesOf.keys()], async (slice) => {
      if (deps.outOfTime()) return void (stats.truncated = true);
      const flushed = await flushSlice(
        ctx,
        slice.map((uid) => ({ uid, pageIds: pagesOf.get(uid)! })),
      );
      stats.claimed += flushed.claimed;
      stats.skippedSubscribers += flushed.skippedSubscribers;
      stats.gaveUp += flushed.gaveUp;
    });
    if (stats.truncated || due.size < (input.duePageSize ?? DUE_PAGE)) break;
  }
  return stats;
}

type Due = { uid: string; pageIds: string[] };

async function flushSlice(ctx: FlushContext, slice: Due[]): Promise<{ claimed: number; skippedSubscribers: number; gaveUp: number }> {
  const { db } = ctx;
  let claimed = 0;
  let skippedSubscribers = 0;
  const left = await claimInRounds(slice, MAX_ROUNDS, async (pending) => {
    const [pages, rows, subscribers] = await Promise.all([
      readPages(
        db,
        pending.flatMap((d) => d.pageIds),
      ),
      readMany(
        db,
        pending.map((d) => outboxCollection(db).doc(digestEmailKey(d.uid, ctx.day))),
      ),
      readMany(
        db,
        pending.map((d) => subscribersCollection(db).doc(d.uid)),
      ),
    ]);
    const plans: FlushPlan[] = [];
    for (const [i, d] of pending.entries()) {
      if (rows[i].exists) continue; // today's digest is already claimed: newer items wait for tomorrow
      plans.push(planFlush(ctx, d, pages, subscribers[i].exists ? subscribers[i].data()! : undefined));
    }
    const postings = await readPostings(db, plans);
    const render = pLimit(RENDER_CONCURRENCY);
    const writes = await Promise.all(plans.map((plan) => render(() => flushWrite(ctx, plan, pages, postings))));
    await ctx.failpoint('before-digest-commit');
    const committed = await commitGroups(db, writes, isLostRace);
    const lost = new Set<string>();
    plans.forEach((plan, i) => {
      if (!committed[i]) return lost.add(plan.uid);
      if (plan.top.length > 0) claimed += 1;
      else if (plan.closed.length > 0) skippedSubscribers += 1;
    });
    // Someone changed one of these pages (a claim adding items, an opt-out) or claimed the digest: look again.
    return pending.filter((d) => lost.has(d.uid));
  });
  return { claimed, skippedSubscribers, gaveUp: left.length };
}

type FlushPlan = {
  uid: string;
  subscriber: Subscriber | undefined;
  /** Deliveries the digest carries, best first, and the ones closed without it. */
  top: Delivery[];
  closed: Delivery[];
  moreCount: number;
  pageOf: Map<string, string>;
};

/**
 * What a flush does with one subscriber's queued deliveries due by `day` (pure: the run and the
 * dry run both decide with it). Opt-outs win: an old queued item never revives.
 */
export function decideDigest(input: { subscriber: Subscriber | undefined; due: Delivery[]; uid: string; day: string; maxItems: number }): {
  top: Delivery[];
  closed: Delivery[];
  moreCount: number;
} {
  const { subscriber } = input;
  const items = [...input.due].sort((a, b) => b.score - a.score || a.jobId.localeCompare(b.jobId));
  const close = (list: Delivery[], reason: string) => list.map((d) => ({ ...d, status: 'skipped' as const, reason }));
  if (!subscriber || subscriber.status !== 'active') {
    return { top: [], closed: close(items, `subscriber_${subscriber?.status ?? 'deleted'}`), moreCount: 0 };
  }
  if (subscriber.mode !== 'daily') {
    // Switched to instant after these were queued (perhaps by a run that read the old mode): no digest.
    return { top: [], closed: close(items, 'mode_changed'), moreCount: 0 };
  }
  const emailKey = digestEmailKey(input.uid, input.day);
  const rest = items.slice(input.maxItems);
  return {
    top: items.slice(0, input.maxItems).map((d) => ({ ...d, status: 'sending' as const, emailKey })),
    closed: close(rest, 'digest_cap'),
    moreCount: rest.length,
  };
}

/** A queued delivery that today's digest may carry. */
export const isDueBy = (d: Delivery, day: string) => d.status === 'queued' && d.digestDate !== null && d.digestDate <= day;

function planFlush(ctx: FlushContext, due: Due, pages: Map<string, ReadPage>, subscriber: Subscriber | undefined): FlushPlan {
  const pageOf = new Map<string, string>();
  const items: Delivery[] = [];
  for (const id of due.pageIds) {
    for (const d of Object.values(pages.get(id)!.page?.deliveries ?? {})) {
      if (!isDueBy(d, ctx.day)) continue;
      items.push(d);
      pageOf.set(d.jobId, id);
    }
  }
  return {
    uid: due.uid,
    subscriber,
    pageOf,
    ...decideDigest({ subscriber, due: items, uid: due.uid, day: ctx.day, maxItems: ctx.maxItems }),
  };
}

/** Postings for every planned digest of the slice in one getAll sweep (the verdicts are on the deliveries). */
async function readPostings(db: Firestore, plans: FlushPlan[]): Promise<Map<string, StoredPosting>> {
  const jobIds = [...new Set(plans.flatMap((plan) => plan.top.map((d) => d.jobId)))];
  const snaps = await readMany(
    db,
    jobIds.map((id) => postingsCollection(db).doc(id)),
  );
  return new Map(jobIds.flatMap((id, i) => (snaps[i].exists ? [[id, snaps[i].data()!] as const] : [])));
}

async function flushWrite(
  ctx: FlushContext,
  plan: FlushPlan,
  pages: Map<string, ReadPage>,
  postings: Map<string, StoredPosting>,
): Promise<WriteGroup> {
  const changed = [...plan.top, ...plan.closed];
  const byPage = new Map<string, Delivery[]>();
  for (const d of changed) {
    const id = plan.pageOf.get(d.jobId)!;
    const onPage = byPage.get(id);
    if (onPage) onPage.push(d);
    else byPage.set(id, [d]);
  }
  const row =
    plan.top.length > 0 && plan.subscriber
      ? newOutboxRow({
          uid: plan.uid,
          kind: 'digest',
          deliveryIds: plan.top.map((d) => deliveryId(plan.uid, d.jobId)),
          payload: await ctx.composeDigest({
            subscriber: plan.subscriber,
            items: plan.top.flatMap((d) => {
              const posting = postings.get(d.jobId);
              return posting ? [{ posting, score: d.score, reasons: d.reasons }] : [];
            }),
            moreCount: plan.moreCount,
            day: ctx.day,
          }),
          runId: ctx.runId,
          now: ctx.now,
          expireAt: ctx.expireAt,
        })
      : null;
  return {
    size: byPage.size + (row ? 1 : 0),
    bytes: changed.length * DELIVERY_BYTES + (row ? payloadBytes(row.payload) : 0),
    apply(batch) {
      if (row) batch.create(outboxCollection(ctx.db).doc(digestEmailKey(plan.uid, ctx.day)), row);
      for (const [id, list] of byPage) {
        writeDeliveries(batch, ctx.db, pages.get(id)!, {
          uid: plan.uid,
          day: pages.get(id)!.page!.day,
          changed: list,
          expireAt: ctx.expireAt,
        });
      }
    },
  };
}
