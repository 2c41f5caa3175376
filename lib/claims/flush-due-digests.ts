import { Timestamp, type Firestore, type QueryDocumentSnapshot } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import type { Failpoint } from '../runtime/failpoints';
import { ownsSubscriber, shardBuckets, type Shard } from '../runtime/shard';
import { postingsCollection, type StoredPosting } from '../feeds/postings-collection';
import { readSourceCoverage, type SourceCoverage } from '../feeds/source-coverage';
import type { PlannedDelivery } from './claim-deliveries';
import { claimInRounds } from './claim-in-rounds';
import { readMany } from '../store/create-documents';
import { deliveriesCollection, deliveryId, rankOf, readDeliveries, type Delivery } from '../ledger/delivery';
import { readNearMisses } from '../ledger/near-misses';
import { chunksOf, digestHourSince, IN_LIMIT, readDigestRows, scheduleKey } from './digest-rows';
import type { Judge, Judgement } from '../verdicts/judge-postings';
import { isLostRace } from '../store/firestore-errors';
import { SUBSCRIBERS_PER_SLICE } from '../store/in-slices';
import { settleDigestItems, settledAs } from '../outbox/settle-digest-items';
import { addDays } from '../store/timestamps';
import { digestPeriod, latestDigestSlot, nextDigestSlot, type DigestSchedule } from '../subscribers/digest-schedule';
import { commitGroups, commitGroupsAt, DELIVERY_BYTES, payloadBytes, type WriteGroup } from '../store/write-groups';
import type { Handoff } from '../outbox/handoff';
import type { FilteredOut, ScoredPosting } from '../mail/compose-email';
import { composeWithinBudget } from '../mail/email-budget';
import { composeInWaves, WAVE_BYTES } from '../mail/compose-in-waves';
import type { EmailPayload } from '../mail/email-payload';
import { digestEmailKey, newOutboxRow, outboxCollection, payloadOf, type OutboxRow } from '../outbox/outbox-row';
import { hasMinPay } from '../pay/minimum-pay';
import { digestScheduleOf, isDigestMode, subscribersCollection, type Subscriber } from '../subscribers/subscriber';

export type ComposeDigest = (input: {
  subscriber: Subscriber;
  items: ScoredPosting[];
  moreCount: number;
  /** The digest's period: the subscriber's local date (`2026-12-02`) or ISO week (`2026-W49`). */
  day: string;
  filteredOut: FilteredOut;
  /** What the sources covered, for the footer: read once per flush, the same for every digest of it. */
  coverage: SourceCoverage | null;
}) => Promise<EmailPayload>;

/**
 * `truncated`: the run's time budget ended the flush with subscribers still due; the next run goes on.
 * `gaveUp`: subscribers whose digest claim still lost a race after MAX_CLAIM_ROUNDS; still due next run.
 */
export type FlushStats = {
  due: number;
  /** Digests claimed (an outbox row each), and the items they list. */
  claimed: number;
  items: number;
  skippedSubscribers: number;
  /** Due items the model judged below the subscriber's threshold: closed `skipped` (not_a_fit). */
  notAFit: number;
  truncated: boolean;
  gaveUp: number;
};

/**
 * Due items asked per query; the flush walks them with a cursor until done or out of time. Each
 * query's results are taken as they arrive (a stream), a slice of subscribers at a time, so this
 * bounds how long one query stays open, not the memory: that stays the slices in flight.
 */
const DUE_PAGE = 25_000;
/** Items closed per write group beside the digest row: groups of several subscribers still pack into one batch. */
const CLOSES_PER_GROUP = 100;

type FlushContext = {
  db: Firestore;
  failpoint: Failpoint;
  composeDigest: ComposeDigest;
  now: Date;
  /** The deployment's digest hour, for subscribers who chose none (DIGEST_HOUR_UTC). */
  digestHourUtc: number;
  runId: string;
  maxItems: number;
  expireAt: Date;
  commit: boolean;
  judge: Judge | null;
  /** The run's sender for the rows it creates: digest rows are then created leased and sealed, and sent as they land. */
  handoff: Handoff | null;
  /** Postings of the planned (unwritten) deliveries a dry run hands in; a run reads every posting from jobs/. */
  plannedPostings: Map<string, StoredPosting>;
  /** Postings read by this flush, by id (undefined: not stored): each is read once, whichever slice lists it first. */
  postingsRead: Map<string, Promise<StoredPosting | undefined>>;
  /**
   * feeds/ read once, when the first digest is composed: a flush with nothing due reads nothing. A
   * failed read leaves the footer line out rather than the digest unsent.
   */
  coverage: () => Promise<SourceCoverage | null>;
  /**
   * Since when every flush has run on this deployment's digest hour (digest-rows.ts): read when
   * the flush starts, and recorded, when it changed, before anything is claimed.
   */
  hourSince: Promise<Date>;
  /** The period of a schedule's latest slot at `now`: worked out once per schedule (subscribers share a few). */
  periodNow: (schedule: DigestSchedule) => string;
  waveBytes: number;
};

/** A queued delivery as read, with the version a close must be guarded by. */
export type DueItem = { id: string; delivery: Delivery; updateTime: Timestamp };
/** One subscriber's queued deliveries due by the flush's clock, best first. */
export type Due = { uid: string; items: DueItem[] };

/**
 * The digest flush, as the design card draws it, on each subscriber's own schedule: every queued
 * delivery carries `digestDueAt`, the slot of the next digest not yet claimed for its subscriber
 * (their local hour, on their weekdays, or their weekly day: digest-schedule.ts), and one indexed
 * query finds what is due — it never reads a subscriber with nothing due. Each subscriber with
 * items due gets one outbox row `digest_{uid}_{period}`, the period being the one their latest
 * slot falls in (local date, or ISO week), listing the top DIGEST_MAX_ITEMS by score. The row's
 * create() *is* the check that this period's digest has not been claimed, and its list *is* the
 * claim: the items are not written here (they are marked when the row is final,
 * settle-digest-items.ts), so later runs, overlapping runs and retries all find the row and do
 * nothing. Lower-scored items are closed `skipped` (digest_cap) in the same write, and their count
 * is the email's "and N more". Items due in a period already claimed (the claim lost that race, or
 * the schedule moved) are moved on to the next slot.
 *
 * With `commit: false` (the dry run) it reads and plans exactly the same and writes nothing: no
 * row, no close, no repair. `planned` are the deliveries the claim step planned without writing
 * them; they join the due items read from the ledger, as a run's own claims would.
 */
export async function flushDueDigests(
  deps: {
    db: Firestore;
    composeDigest: ComposeDigest;
    outOfTime: () => boolean;
    failpoint?: Failpoint;
    /** The run's verdict stage, when it is on: each digest's queued items are judged before it is decided. */
    judge?: Judge | null;
    /** The run's sender (handoff.ts): digests are created leased, sealed into their batches, and sent as they land. */
    handoff?: Handoff | null;
  },
  input: {
    now: Date;
    runId: string;
    digestHourUtc: number;
    maxItems: number;
    retentionDays: number;
    duePageSize?: number;
    /** The digest bodies a slice composes before it writes them (WAVE_BYTES by default; tests make it small). */
    waveBytes?: number;
    /** A shard's run flushes only its own subscribers' digests. */
    shard?: Shard;
    /**
     * Every queued item carries its `shardBucket` (the store is past lib/ledger/migrations/shard-bucket.ts):
     * a shard's run then asks for its own buckets' items only. Off by default: every due item is read.
     */
    bucketed?: boolean;
    /** Off: plan only, write nothing (the dry run). On by default. */
    commit?: boolean;
    /** With the commit off: the queued deliveries the claim step planned and did not write. */
    planned?: PlannedDelivery[];
  },
): Promise<FlushStats> {
  const stats: FlushStats = { due: 0, claimed: 0, items: 0, skippedSubscribers: 0, notAFit: 0, truncated: false, gaveUp: 0 };
  // The due query cannot be cut short once started (on the emulator it scans every queued item):
  // a run whose budget is already spent leaves the whole flush to the next run.
  if (deps.outOfTime()) return { ...stats, truncated: true };
  const ctx: FlushContext = {
    ...deps,
    ...input,
    failpoint: deps.failpoint ?? (async () => {}),
    expireAt: addDays(input.now, input.retentionDays),
    commit: input.commit ?? true,
    judge: deps.judge ?? null,
    handoff: (input.commit ?? true) ? (deps.handoff ?? null) : null,
    plannedPostings: new Map((input.planned ?? []).map((p) => [p.posting.id, p.posting])),
    postingsRead: new Map(),
    waveBytes: input.waveBytes ?? WAVE_BYTES,
    periodNow: memoBySchedule((schedule) => digestPeriod(schedule, latestDigestSlot(schedule, input.now))),
    coverage: once(() => readSourceCoverage(deps.db, input.now).catch(() => null)),
    hourSince: digestHourSince(deps.db, { hourUtc: input.digestHourUtc, now: input.now, commit: input.commit ?? true }),
  };
  // Awaited whatever happens below, so its write never outlives the flush and its failure is not left unhandled.
  const recorded = ctx.hourSince.then(
    () => null,
    (error: unknown) => ({ error }),
  );
  const pages = dueSubscribers(deps.db, { now: input.now, pageSize: input.duePageSize, shard: input.shard, bucketed: input.bucketed });
  const slices = slicePipeline();
  let stopped: { error: unknown } | null = null;
  try {
    for await (const due of withPlanned(pages, input.planned ?? [], input.now)) {
      if (deps.outOfTime()) {
        stats.truncated = true;
        break;
      }
      stats.due += due.length;
      // A group is a slice, but the dry run's planned items can come as one last, larger group.
      for (let i = 0; i < due.length; i += SUBSCRIBERS_PER_SLICE) {
        const slice = due.slice(i, i + SUBSCRIBERS_PER_SLICE);
        slices.start(async () => {
          if (deps.outOfTime()) return void (stats.truncated = true);
          const flushed = await flushSlice(ctx, slice);
          stats.claimed += flushed.claimed;
          stats.items += flushed.items;
          stats.skippedSubscribers += flushed.skippedSubscribers;
          stats.notAFit += flushed.notAFit;
          stats.gaveUp += flushed.gaveUp;
        });
      }
      // The next group is read while these slices run, once none waits to start.
      await slices.started();
      if (stats.truncated || slices.failed()) break;
    }
  } catch (error) {
    stopped = { error };
  }
  // Both awaited whatever happened above, so no write of this flush lands after it has returned.
  // Then one failure is thrown: a slice's first, else the hour's record's, else the due pages'.
  const recordFailed = await recorded;
  const sliceFailed = await slices.settled().then(
    () => null,
    (error: unknown) => ({ error }),
  );
  const failed = sliceFailed ?? recordFailed ?? stopped;
  if (failed) throw failed.error;
  return stats;
}

/** Slices in progress at once: one renders (CPU) while the other waits on the store. */
const SLICES_IN_FLIGHT = 2;

/**
 * The flush's slices, SLICES_IN_FLIGHT at a time across due pages, started in order. `started`
 * resolves once every slice handed in so far has started (or the pipeline has failed), so the
 * caller reads the next page while the last ones run; `settled` awaits them all, even when one
 * failed, and then throws the first failure, so no write of this flush lands after it has returned.
 */
function slicePipeline() {
  const limit = pLimit(SLICES_IN_FLIGHT);
  const running: Promise<void>[] = [];
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  return {
    start(work: () => Promise<void>) {
      running.push(
        limit(async () => {
          poke();
          if (failure) return;
          try {
            await work();
          } catch (error) {
            failure ??= { error };
          }
        }).finally(poke),
      );
    },
    failed: () => failure !== null,
    async started() {
      while (limit.pendingCount > 0 && !failure) await new Promise<void>((resolve) => (wake = resolve));
    },
    async settled() {
      await Promise.all(running);
      if (failure) throw failure.error;
    },
  };
}

/**
 * The due pages with the planned deliveries due by `now` added: each to its subscriber's entry when
 * a page has one, the rest as a last page. Planned items were never written, so no close of theirs
 * is ever committed; their version is a stand-in.
 */
async function* withPlanned(pages: AsyncGenerator<Due[]>, planned: PlannedDelivery[], now: Date): AsyncGenerator<Due[]> {
  const extra = new Map<string, DueItem[]>();
  for (const { delivery } of planned) {
    if (!isDueAt(delivery, now)) continue;
    const item = { id: deliveryId(delivery.uid, delivery.jobId), delivery, updateTime: Timestamp.fromDate(now) };
    extra.set(delivery.uid, [...(extra.get(delivery.uid) ?? []), item]);
  }
  for await (const page of pages) {
    yield page.map((due) => {
      const items = extra.get(due.uid);
      extra.delete(due.uid);
      return items ? { uid: due.uid, items: [...due.items, ...items] } : due;
    });
  }
  if (extra.size > 0) yield [...extra].map(([uid, items]) => ({ uid, items }));
}

/**
 * Subscribers with queued deliveries due by `now`, SUBSCRIBERS_PER_SLICE at a time, each whole and
 * best first, and each item read once. One query over (status, digestDueAt, uid, score desc) with
 * the due instant as its range: the range comes first in the index, so the query scans only what is
 * due (a run in which nobody is due scans no queued item), and within a slot a subscriber's items
 * arrive together. A subscriber is complete when the next one's first item arrives; one whose items
 * run past the end of a page is held back and completed from the next page. The query's results are
 * streamed and taken only as fast as the flush asks for the next group, so memory stays a group or
 * two, whatever the page size.
 *
 * Items arrive slot by slot, so a subscriber with items due at two slots (a missed run, a flush cut
 * short, a schedule moved) would come twice, and the second time find its digest claimed by the
 * first and wait a period: against "the next digest not yet claimed". So a group handed on carries
 * all of its subscribers' due items. What the stream read before the group was handed on is merged
 * into the subscriber's one entry; what it has not read yet (due at a later slot) is asked for
 * directly, IN_LIMIT subscribers a query over (status, uid, digestDueAt), and skipped when the
 * stream reaches it — once one read has found anything due at a later slot at all. The last group
 * needs none of this: the stream has read everything by then.
 *
 * A shard's run, once every queued item carries its bucket (`bucketed`) and its count divides
 * SHARD_BUCKETS, asks only for its own buckets (`shardBucket in [...]`: 16 ÷ n values, within
 * Firestore's 30), so it reads its share of the due items instead of all of them. Otherwise a shard
 * reads every due item and keeps its own; either way each subscriber is checked against the shard.
 */
export async function* dueSubscribers(
  db: Firestore,
  input: { now: Date; pageSize?: number; groupSize?: number; shard?: Shard; bucketed?: boolean },
): AsyncGenerator<Due[]> {
  const pageSize = input.pageSize ?? DUE_PAGE;
  const groupSize = input.groupSize ?? SUBSCRIBERS_PER_SLICE;
  const dueBy = Timestamp.fromDate(input.now);
  const queued = deliveriesCollection(db).where('status', '==', 'queued');
  const buckets = input.bucketed ? shardBuckets(input.shard) : null;
  const filtered = buckets ? queued.where('shardBucket', 'in', buckets) : queued;
  // Items a group already took by asking for its subscribers' later slots: the stream skips them.
  const taken = new Set<string>();
  let group = new Map<string, Due>();
  const complete = (due: Due) => {
    if (!ownsSubscriber(input.shard, due.uid)) return;
    const entry = group.get(due.uid);
    if (entry) entry.items.push(...due.items);
    else group.set(due.uid, due);
  };
  const handOn = async (stillReading: boolean): Promise<Due[]> => {
    const handed = [...group.values()];
    group = new Map();
    if (stillReading) await takeLaterSlots(db, { due: handed, now: dueBy, taken });
    for (const due of handed) due.items.sort(bestFirst);
    return handed;
  };
  const query = filtered.where('digestDueAt', '<=', dueBy).orderBy('digestDueAt').orderBy('uid').orderBy('score', 'desc');
  let cursor: QueryDocumentSnapshot<Delivery> | undefined;
  let carried: Due | null = null;
  for (;;) {
    let size = 0;
    const page = (cursor ? query.startAfter(cursor) : query).limit(pageSize).stream() as AsyncIterable<QueryDocumentSnapshot<Delivery>>;
    for await (const doc of page) {
      size += 1;
      cursor = doc;
      const delivery = doc.data();
      if (carried && carried.uid !== delivery.uid) {
        complete(carried);
        carried = null;
        if (group.size >= groupSize) yield await handOn(true);
      }
      // Checked after handing on: the group just handed on may have taken this very item.
      if (taken.has(doc.id)) continue;
      const item = { id: doc.id, delivery, updateTime: doc.updateTime };
      if (carried) carried.items.push(item);
      else carried = { uid: delivery.uid, items: [item] };
    }
    if (size < pageSize) break;
  }
  if (carried) complete(carried);
  if (group.size > 0) yield await handOn(false);
}

/**
 * Adds to each subscriber's entry their items due after the latest slot the stream has read for
 * them and by `now`, and records them as taken. Subscribers are asked together by that slot. One
 * read first asks whether anything at all is due after the earliest of those slots: usually
 * nothing is (a run has one slot due), and then no subscriber is asked.
 */
async function takeLaterSlots(db: Firestore, input: { due: Due[]; now: Timestamp; taken: Set<string> }): Promise<void> {
  const bySlot = new Map<number, Due[]>();
  for (const due of input.due) {
    const slot = Math.max(...due.items.map((i) => i.delivery.digestDueAt?.getTime() ?? 0));
    bySlot.set(slot, [...(bySlot.get(slot) ?? []), due]);
  }
  const anyLater = await deliveriesCollection(db)
    .where('status', '==', 'queued')
    .where('digestDueAt', '>', Timestamp.fromMillis(Math.min(...bySlot.keys())))
    .where('digestDueAt', '<=', input.now)
    .select()
    .limit(1)
    .get();
  if (anyLater.empty) return;
  const asks = [...bySlot].flatMap(([slot, dues]) => chunksOf(dues, IN_LIMIT).map((chunk) => ({ slot, chunk })));
  await Promise.all(
    asks.map(async ({ slot, chunk }) => {
      const byUid = new Map(chunk.map((due) => [due.uid, due]));
      const later = await deliveriesCollection(db)
        .where('status', '==', 'queued')
        .where('uid', 'in', [...byUid.keys()])
        .where('digestDueAt', '>', Timestamp.fromMillis(slot))
        .where('digestDueAt', '<=', input.now)
        .get();
      for (const doc of later.docs) {
        input.taken.add(doc.id);
        byUid.get(doc.data().uid)?.items.push({ id: doc.id, delivery: doc.data(), updateTime: doc.updateTime });
      }
    }),
  );
}

const bestFirst = (a: DueItem, b: DueItem) => b.delivery.score - a.delivery.score || a.id.localeCompare(b.id);

async function flushSlice(
  ctx: FlushContext,
  slice: Due[],
): Promise<{ claimed: number; items: number; skippedSubscribers: number; notAFit: number; gaveUp: number }> {
  const { db } = ctx;
  let claimed = 0;
  let items = 0;
  let skippedSubscribers = 0;
  let notAFit = 0;
  let firstRound = true;
  const { gaveUp } = await claimInRounds(slice, async (pending) => {
    // After a lost race the items are read again: a claim may have added some, an opt-out closed some.
    const current = firstRound ? pending : await rereadItems(db, pending, ctx.now);
    firstRound = false;
    const snaps = await readMany(
      db,
      current.map((d) => subscribersCollection(db).doc(d.uid)),
    );
    const subscribers = snaps.map((snap) => (snap.exists ? snap.data()! : undefined));
    const schedules = subscribers.map((subscriber) => (subscriber ? digestScheduleOf(subscriber, ctx.digestHourUtc) : null));
    // The period their latest slot falls in: the digest this flush claims for them.
    const periods = schedules.map((schedule) => (schedule ? ctx.periodNow(schedule) : null));
    const rows = await readDigestRows(db, current, { subscribers, schedules, periods, now: ctx.now, hourSince: await ctx.hourSince });
    const toDecide: { due: Due; free: Delivery[]; subscriber: Subscriber | undefined; period: string }[] = [];
    const movingOn: { due: Due; free: Delivery[]; schedule: DigestSchedule }[] = [];
    const repairs: { row: OutboxRow; emailKey: string; items: DueItem[] }[] = [];
    for (const [i, due] of current.entries()) {
      const { free, listed } = notYetListed(due, rows);
      repairs.push(...listed);
      if (free.length === 0) continue;
      const period = periods[i];
      // This period's digest is already claimed: items it does not list wait for the next one.
      if (period && rows.get(digestEmailKey(due.uid, period))) movingOn.push({ due, free, schedule: schedules[i]! });
      else toDecide.push({ due, free, subscriber: subscribers[i], period: period ?? '' });
    }
    if (ctx.commit) await moveOnToNextSlot(ctx, movingOn);
    const judged = await judgeDigests(ctx, toDecide);
    const plans: FlushPlan[] = toDecide.map(({ due, free, subscriber, period }) => ({
      uid: due.uid,
      subscriber,
      period,
      versions: new Map(due.items.map((item) => [item.delivery.jobId, item.updateTime])),
      judged: ctx.judge !== null,
      ...decideDigest({
        subscriber,
        due: free,
        uid: due.uid,
        maxItems: ctx.maxItems,
        judgements: judged.verdicts.get(due.uid),
      }),
    }));
    // Items an earlier digest listed, whose marks did not land after it was final (a crash between the two): mark them now.
    if (ctx.commit)
      await settleDigestItems(
        db,
        repairs.flatMap((r) =>
          settledAs(r.row.status) ? [{ emailKey: r.emailKey, row: r.row, deliveryIds: r.items.map((i) => i.id) }] : [],
        ),
      );
    const [postings, nearMisses] = await Promise.all([readPostings(ctx, plans, judged.postings), countNearMisses(ctx, plans)]);
    // Composed, written and handed over a wave at a time (compose-in-waves.ts): the slice holds a wave of digests, not all of them.
    const lost = new Set<string>();
    const waves = composeInWaves(
      plans,
      (plan, i) => composeDigestRow(ctx, plan, postings, nearMisses[i]),
      ({ row }) => row?.payload ?? null,
      ctx.waveBytes,
    );
    let held: ComposedDigest[] = [];
    for await (const wave of waves) {
      const landed = await commitDigests(ctx, [...held, ...wave.items.map((w) => w.result)], { holdOpenSet: !wave.last });
      held = landed.held;
      claimed += landed.claimed;
      items += landed.items;
      skippedSubscribers += landed.skippedSubscribers;
      notAFit += landed.notAFit;
      for (const uid of landed.lost) lost.add(uid);
    }
    // Someone changed one of these items (an opt-out, a concurrent flush) or claimed the digest: look again.
    return current.filter((d) => lost.has(d.uid));
  });
  return { claimed, items, skippedSubscribers, notAFit, gaveUp: gaveUp.length };
}

type ComposedDigest = { plan: FlushPlan; row: OutboxRow | null };

/**
 * One wave of a slice's composed digests, written: sealed digests as whole sets (their rows with
 * their first closes, all or nothing), every other close in its own group; the sets that landed go
 * to the run's sender at once. With `holdOpenSet` (more waves to come), the digests of the last
 * set, if it is not full, are held back and written with the next wave, so the cut between waves
 * does not cut a provider request short. Counts what landed; `lost` are the subscribers any of
 * whose writes lost a race, to be read again; `held` what waits for the next wave.
 */
async function commitDigests(
  ctx: FlushContext,
  wave: ComposedDigest[],
  options: { holdOpenSet: boolean },
): Promise<{ claimed: number; items: number; skippedSubscribers: number; notAFit: number; lost: string[]; held: ComposedDigest[] }> {
  const fresh = wave.flatMap(({ plan, row }, i) =>
    row ? [{ emailKey: digestEmailKey(plan.uid, plan.period), row, plan, index: i, writes: firstGroupSize(plan) }] : [],
  );
  const sets = ctx.handoff ? ctx.handoff.seal(fresh) : [];
  const heldSet = options.holdOpenSet && sets.at(-1)?.open ? sets.pop()! : null;
  const heldBack = new Set(heldSet?.members.map((m) => m.index) ?? []);
  const landed = {
    claimed: 0,
    items: 0,
    skippedSubscribers: 0,
    notAFit: 0,
    lost: [] as string[],
    held: wave.filter((_, i) => heldBack.has(i)),
  };
  const sealed = new Set(sets.flatMap((set) => set.members.map((m) => m.index)));
  const groups = [
    // Sealed digests: each set's rows, with their first closes, created all or nothing.
    ...sets.map((set) => ({
      write: combined(
        set.members.map((m) => flushWrites(ctx, m.plan, set.stored(m))[0]),
        set.sealBytes,
      ),
      plans: set.members.map((m) => m.index),
    })),
    ...wave.flatMap(({ plan, row }, i) =>
      heldBack.has(i)
        ? []
        : flushWrites(ctx, plan, row)
            .filter((_, g) => !(g === 0 && sealed.has(i)))
            .map((write) => ({ write, plans: [i] })),
    ),
  ];
  const committed = ctx.commit
    ? await commitFlush(
        ctx,
        groups.map((g) => g.write),
      )
    : groups.map(() => PLANNED);
  const lostPlans = new Set(groups.flatMap((g, j) => (committed[j] ? [] : g.plans)));
  if (ctx.handoff)
    await ctx.handoff.offer(
      sets.flatMap((set, j) => (committed[j] ? [{ set, writtenAt: committed[j] }] : [])),
      'flush',
    );
  wave.forEach(({ plan }, i) => {
    if (heldBack.has(i)) return;
    if (lostPlans.has(i)) return void landed.lost.push(plan.uid);
    landed.notAFit += plan.notAFit;
    if (plan.top.length > 0) {
      landed.claimed += 1;
      landed.items += plan.top.length;
    } else if (plan.closed.length > 0) landed.skippedSubscribers += 1;
  });
  return landed;
}

/**
 * Daily subscribers are scored once, at the flush, over their queued items (docs/verdicts.md):
 * every active daily subscriber about to get a digest has its free items judged, one posting a
 * request. Their postings are read once here and reused to compose. A pair
 * already scored (an earlier round, run or retry) is read from matches/, never asked again.
 */
async function judgeDigests(
  ctx: FlushContext,
  toDecide: { due: Due; free: Delivery[]; subscriber: Subscriber | undefined }[],
): Promise<{ verdicts: Map<string, Map<string, Judgement>>; postings: Map<string, StoredPosting> }> {
  const judge = ctx.judge;
  const verdicts = new Map<string, Map<string, Judgement>>();
  if (!judge) return { verdicts, postings: new Map() };
  const getsDigest = toDecide.filter(({ subscriber }) => subscriber?.status === 'active' && isDigestMode(subscriber.mode));
  const postings = await readPostingsById(
    ctx,
    getsDigest.flatMap(({ free }) => free.map((d) => d.jobId)),
  );
  await Promise.all(
    getsDigest.map(async ({ due, free, subscriber }) => {
      const shortlisted = free.flatMap((d) => (postings.has(d.jobId) ? [postings.get(d.jobId)!] : []));
      verdicts.set(due.uid, await judge.judge(subscriber!, shortlisted));
    }),
  );
  return { verdicts, postings };
}

async function commitFlush(ctx: FlushContext, groups: WriteGroup[]): Promise<(Timestamp | null)[]> {
  await ctx.failpoint('before-digest-commit');
  return commitGroupsAt(ctx.db, groups, isLostRace);
}

/** A dry run's stand-in for a commit time: every plan counts as landed, and nothing is fenced by it. */
const PLANNED = Timestamp.fromMillis(0);

/** Several groups as one, all or nothing: a sealed set of digests is created whole or not at all. */
function combined(groups: WriteGroup[], extraBytes: number): WriteGroup {
  return {
    size: groups.reduce((n, g) => n + g.size, 0),
    bytes: groups.reduce((n, g) => n + (g.bytes ?? 0), extraBytes),
    apply: (batch) => groups.forEach((g) => g.apply(batch)),
  };
}

/**
 * The items again, as they are now: those still queued and due. A subscriber with none left (the
 * run that won sent and marked them, or moved them to a later slot) drops out: nothing is due for
 * them, and an empty list has no earliest item to look for digest rows from.
 */
async function rereadItems(db: Firestore, due: Due[], now: Date): Promise<Due[]> {
  const snaps = await readDeliveries(
    db,
    due.flatMap((d) => d.items.map((i) => i.id)),
  );
  return due
    .map((d) => ({
      uid: d.uid,
      items: d.items.flatMap((i) => {
        const snap = snaps.get(i.id)!;
        return snap.exists && isDueAt(snap.data()!, now) ? [{ id: i.id, delivery: snap.data()!, updateTime: snap.updateTime! }] : [];
      }),
    }))
    .filter((d) => d.items.length > 0);
}

/**
 * Items due in a period whose digest is already claimed without them are due in the next one: their
 * `digestDueAt` moves to the next slot, guarded by the version read (an item that moved meanwhile
 * is left to whoever moved it), so the flush stops finding them until then.
 */
async function moveOnToNextSlot(ctx: FlushContext, movingOn: { due: Due; free: Delivery[]; schedule: DigestSchedule }[]): Promise<void> {
  const groups: WriteGroup[] = movingOn.flatMap(({ due, free, schedule }) => {
    const next = nextDigestSlot(schedule, ctx.now);
    const period = digestPeriod(schedule, next);
    const versions = new Map(due.items.map((item) => [item.delivery.jobId, item.updateTime]));
    return free.map((d) => ({
      size: 1,
      bytes: DELIVERY_BYTES,
      apply: (batch) =>
        batch.update(
          deliveriesCollection(ctx.db).doc(deliveryId(d.uid, d.jobId)),
          { digestDueAt: next, digestDate: period },
          { lastUpdateTime: versions.get(d.jobId)! },
        ),
    }));
  });
  if (groups.length > 0) await commitGroups(ctx.db, groups, isLostRace);
}

/** Splits a subscriber's due items into those no earlier digest row lists, and those an earlier row holds. */
export function notYetListed(
  due: Due,
  rows: Map<string, OutboxRow | undefined>,
): { free: Delivery[]; listed: { row: OutboxRow; emailKey: string; items: DueItem[] }[] } {
  const holder = new Map<string, { row: OutboxRow; emailKey: string; items: DueItem[] }>();
  const listedBy = new Map<string, string>();
  for (const [key, row] of rows) {
    if (!row || row.uid !== due.uid) continue;
    for (const id of row.deliveryIds) listedBy.set(id, key);
  }
  const free: Delivery[] = [];
  for (const item of due.items) {
    const key = listedBy.get(item.id);
    if (!key) {
      free.push(item.delivery);
      continue;
    }
    const entry = holder.get(key) ?? { row: rows.get(key)!, emailKey: key, items: [] };
    entry.items.push(item);
    holder.set(key, entry);
  }
  return { free, listed: [...holder.values()] };
}

type FlushPlan = {
  uid: string;
  subscriber: Subscriber | undefined;
  /** The period the digest is claimed for ('' when no digest can go: not a digest subscriber, or not active). */
  period: string;
  /** Deliveries the digest lists, best first, and the ones closed without it. */
  top: Delivery[];
  closed: Delivery[];
  moreCount: number;
  /** Items the model judged below the threshold (among `closed`). */
  notAFit: number;
  /** The verdict stage judged these items: the listed ones get their fit written too. */
  judged: boolean;
  /** Each item's version as read, by job id: what its close is guarded by. */
  versions: Map<string, Timestamp>;
};

/**
 * What a flush does with one subscriber's queued deliveries due by `day` (pure: the run and the
 * dry run both decide with it). Opt-outs win: an old queued item never revives.
 */
export function decideDigest(input: {
  subscriber: Subscriber | undefined;
  due: Delivery[];
  uid: string;
  maxItems: number;
  /** The model's judgement of each item by job id, when the verdict stage judged them. */
  judgements?: Map<string, Judgement>;
}): {
  top: Delivery[];
  closed: Delivery[];
  moreCount: number;
  notAFit: number;
} {
  const { subscriber, judgements } = input;
  const withJudgement = (d: Delivery): Delivery => {
    const j = judgements?.get(d.jobId);
    return j ? { ...d, fit: j.fit, fitReason: j.fitReason, aiFallback: j.fallback } : d;
  };
  const close = (list: Delivery[], reason: string) => list.map((d) => ({ ...d, status: 'skipped' as const, reason }));
  const byScore = [...input.due].sort((a, b) => b.score - a.score || a.jobId.localeCompare(b.jobId));
  if (!subscriber || subscriber.status !== 'active') {
    return { top: [], closed: close(byScore, `subscriber_${subscriber?.status ?? 'deleted'}`), moreCount: 0, notAFit: 0 };
  }
  if (!isDigestMode(subscriber.mode)) {
    // Switched to instant after these were queued (perhaps by a run that read the old mode): no digest.
    return { top: [], closed: close(byScore, 'mode_changed'), moreCount: 0, notAFit: 0 };
  }
  // Digests rank by the model's fit when it judged an item, else by its keyword score.
  const items = input.due.map(withJudgement).sort((a, b) => rankOf(b) - rankOf(a) || a.jobId.localeCompare(b.jobId));
  const notAFit = items.filter((d) => judgements?.get(d.jobId)?.fits === false);
  const fits = items.filter((d) => judgements?.get(d.jobId)?.fits !== false);
  const rest = fits.slice(input.maxItems);
  return {
    top: fits.slice(0, input.maxItems),
    closed: [...close(notAFit, 'not_a_fit'), ...close(rest, 'digest_cap')],
    moreCount: rest.length,
    notAFit: notAFit.length,
  };
}

/** A function of a schedule, worked out once per distinct schedule (a flush's subscribers share a few). */
function memoBySchedule<T>(of: (schedule: DigestSchedule) => T): (schedule: DigestSchedule) => T {
  const memo = new Map<string, T>();
  return (schedule) => {
    const key = scheduleKey(schedule);
    if (!memo.has(key)) memo.set(key, of(schedule));
    return memo.get(key)!;
  };
}

/** The first call's promise, shared by every later call. */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => (pending ??= read());
}

/** A queued delivery a digest claimed now may carry. */
export const isDueAt = (d: Delivery, now: Date) => d.status === 'queued' && !!d.digestDueAt && d.digestDueAt.getTime() <= now.getTime();

/** Postings for every planned digest of the slice in one getAll sweep (the verdicts are on the deliveries). */
async function readPostings(ctx: FlushContext, plans: FlushPlan[], known: Map<string, StoredPosting>): Promise<Map<string, StoredPosting>> {
  const read = await readPostingsById(
    ctx,
    plans.flatMap((plan) => plan.top.map((d) => d.jobId)).filter((id) => !known.has(id)),
  );
  return new Map([...known, ...read]);
}

/** Postings a flush keeps once read; past this many it forgets them and reads again (memory stays bounded). */
const POSTINGS_KEPT = 20_000;

/**
 * Postings by id: those this flush has not read yet in one getAll sweep, the rest as this flush
 * read them before (its slices list the same few postings over and over, and a digest composed a
 * minute later from the same read says nothing older than one composed from a read per slice).
 * A dry run's planned (unwritten) postings come from its plan.
 */
async function readPostingsById(ctx: FlushContext, ids: string[]): Promise<Map<string, StoredPosting>> {
  const jobIds = [...new Set(ids)].filter((id) => !ctx.plannedPostings.has(id));
  let unread = jobIds.filter((id) => !ctx.postingsRead.has(id));
  if (ctx.postingsRead.size + unread.length > POSTINGS_KEPT) {
    ctx.postingsRead.clear();
    unread = jobIds;
  }
  if (unread.length > 0) {
    const snaps = readMany(
      ctx.db,
      unread.map((id) => postingsCollection(ctx.db).doc(id)),
    );
    unread.forEach((id, i) =>
      ctx.postingsRead.set(
        id,
        snaps.then((s) => (s[i].exists ? s[i].data()! : undefined)),
      ),
    );
  }
  const read = await Promise.all(jobIds.map(async (id) => [id, await ctx.postingsRead.get(id)!] as const));
  return new Map([...ctx.plannedPostings, ...read.flatMap(([id, posting]) => (posting ? [[id, posting] as const] : []))]);
}

/**
 * The digest's row, composed from the plan's items that fit one email: a digest too heavy for its
 * row (postings at every length cap) lists the best that fit, and the rest join "N more" as capped.
 */
/**
 * The digest's near-miss line: how many of its keyword matches were left out, and why. The claims
 * counted the exclude and pay-minimum ones in nearMisses/{uid}_{day} (one getAll for the slice's
 * digests); the not-a-fit ones are this flush's own.
 */
async function countNearMisses(ctx: FlushContext, plans: FlushPlan[]): Promise<(Omit<FilteredOut, 'minPay' | 'notAFit'> | null)[]> {
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

async function composeDigestRow(
  ctx: FlushContext,
  plan: FlushPlan,
  postings: Map<string, StoredPosting>,
  nearMisses: Omit<FilteredOut, 'minPay' | 'notAFit'> | null,
): Promise<{ plan: FlushPlan; row: OutboxRow | null }> {
  const { subscriber } = plan;
  if (plan.top.length === 0 || !subscriber) return { plan, row: null };
  const coverage = await ctx.coverage();
  const { payload, shown } = await composeWithinBudget(plan.top, (top, leftOut) =>
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
  const overflow = plan.top.slice(shown).map((d) => ({ ...d, status: 'skipped' as const, reason: 'digest_cap' }));
  const fitted = {
    ...plan,
    top: plan.top.slice(0, shown),
    closed: [...overflow, ...plan.closed],
    moreCount: plan.moreCount + overflow.length,
  };
  const row = newOutboxRow({
    uid: plan.uid,
    kind: 'digest',
    deliveryIds: fitted.top.map((d) => deliveryId(plan.uid, d.jobId)),
    payload,
    runId: ctx.runId,
    now: ctx.now,
    expireAt: ctx.expireAt,
  });
  return { plan: fitted, row };
}

/**
 * The digest row with the first closes (all or nothing: a flush that loses the row's create()
 * closes nothing), then the rest of the closes in their own groups. Each close is guarded by the
 * version the flush read, so an item that moved since (an opt-out, a mark) is never overwritten.
 */
function flushWrites(ctx: FlushContext, plan: FlushPlan, row: OutboxRow | null): WriteGroup[] {
  // (The row as it is created: pending for the dispatcher, or leased and sealed by the run's sender.)
  const groups: WriteGroup[] = [];
  // Judged items the digest lists carry their fit too (the delivery says why it was sent), written with the row.
  const listed = row && plan.judged ? plan.top : [];
  for (let i = 0; i === 0 || i < plan.closed.length; i += CLOSES_PER_GROUP) {
    const closes = plan.closed.slice(i, i + CLOSES_PER_GROUP);
    const withRow = i === 0 ? row : null;
    const fitted = i === 0 ? listed : [];
    if (!withRow && closes.length === 0) break;
    groups.push({
      size: closes.length + fitted.length + (withRow ? 1 : 0),
      bytes: (closes.length + fitted.length) * DELIVERY_BYTES + (withRow ? payloadBytes(payloadOf(withRow)) : 0),
      apply(batch) {
        if (withRow) batch.create(outboxCollection(ctx.db).doc(digestEmailKey(plan.uid, plan.period)), withRow);
        const guarded = (d: Delivery, fields: Partial<Delivery>) =>
          batch.update(deliveriesCollection(ctx.db).doc(deliveryId(d.uid, d.jobId)), fields, {
            lastUpdateTime: plan.versions.get(d.jobId)!,
          });
        for (const d of closes) guarded(d, { status: 'skipped', reason: d.reason, ...judgementFields(d, plan.judged) });
        for (const d of fitted) guarded(d, judgementFields(d, true));
      },
    });
  }
  return groups;
}

/** Writes of a digest's first group: its row, its first closes, and the fit of the items it lists when judged. */
const firstGroupSize = (plan: FlushPlan) => 1 + Math.min(plan.closed.length, CLOSES_PER_GROUP) + (plan.judged ? plan.top.length : 0);

const judgementFields = (d: Delivery, judged: boolean): Partial<Delivery> =>
  judged ? { fit: d.fit ?? null, fitReason: d.fitReason ?? null, aiFallback: d.aiFallback ?? null } : {};
