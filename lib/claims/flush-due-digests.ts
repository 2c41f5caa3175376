import { Timestamp, type Firestore } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import type { Failpoint } from '../runtime/failpoints';
import type { SubscriberMessagesOf } from '../messages/subscriber-messages';
import type { Shard } from '../runtime/shard';
import { readSourceCoverage } from '../feeds/source-coverage';
import { COMPOSE_BATCH_BYTES } from '../mail/compose-in-batches';
import { deliveryId } from '../ledger/delivery';
import { isDueAt, type Due, type DueItem } from '../ledger/due-items';
import { dueSubscribers } from '../ledger/read-due-items';
import type { RunSender } from '../outbox/run-sender';
import { SUBSCRIBERS_PER_BATCH } from '../store/in-batches';
import { addDays } from '../store/timestamps';
import { digestPeriod, latestDigestSlot, type DigestSchedule } from '../subscribers/digest-schedule';
import type { Judge } from '../verdicts/judge-postings';
import type { PlannedDelivery } from './claim-plan';
import { digestHourSince, scheduleKey } from './digest-rows';
import { flushPostings } from './digest-postings';
import type { ComposeDigest, FlushContext } from './flush-context';
import { flushSubscribers } from './flush-subscribers';

export type { ComposeDigest } from './flush-context';

/**
 * `truncated`: the run's time budget ended the flush with subscribers still due; the next run goes on.
 * `gaveUp`: subscribers whose digest claim still lost a race after MAX_CLAIM_ATTEMPTS; still due next run.
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

export type FlushDeps = {
  db: Firestore;
  composeDigest: ComposeDigest;
  /** Subscribers' channel messages; without it a digest goes by email only. */
  channelMessages?: SubscriberMessagesOf;
  outOfTime: () => boolean;
  failpoint?: Failpoint;
  /** The run's verdict stage, when it is on: each digest's queued items are judged before it is decided. */
  judge?: Judge | null;
  /** The run's sender (run-sender.ts): digests are created leased, packed into their send batches, and sent as they land. */
  runSender?: RunSender | null;
};

export type FlushInput = {
  now: Date;
  runId: string;
  digestHourUtc: number;
  maxItems: number;
  retentionDays: number;
  duePageSize?: number;
  /** The digest bodies a subscriber batch composes before it writes them (COMPOSE_BATCH_BYTES by default; tests make it small). */
  composeBatchBytes?: number;
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
};

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
export async function flushDueDigests(deps: FlushDeps, input: FlushInput): Promise<FlushStats> {
  const stats: FlushStats = { due: 0, claimed: 0, items: 0, skippedSubscribers: 0, notAFit: 0, truncated: false, gaveUp: 0 };
  // The due query cannot be cut short once started (on the emulator it scans every queued item):
  // a run whose budget is already spent leaves the whole flush to the next run.
  if (deps.outOfTime()) return { ...stats, truncated: true };
  const ctx = flushContext(deps, input);
  // Awaited whatever happens below, so its write never outlives the flush and its failure is not left unhandled.
  const recorded = ctx.hourSince.then(
    () => null,
    (error: unknown) => ({ error }),
  );
  const pages = dueSubscribers(deps.db, { now: input.now, pageSize: input.duePageSize, shard: input.shard, bucketed: input.bucketed });
  const batches = batchPipeline();
  let stopped: { error: unknown } | null = null;
  try {
    for await (const due of withPlanned(pages, input.planned ?? [], input.now)) {
      if (deps.outOfTime()) {
        stats.truncated = true;
        break;
      }
      stats.due += due.length;
      // A page of due subscribers is a subscriber batch, but the dry run's planned items can come as one last, larger page.
      for (let i = 0; i < due.length; i += SUBSCRIBERS_PER_BATCH) {
        const batch = due.slice(i, i + SUBSCRIBERS_PER_BATCH);
        batches.start(async () => {
          if (deps.outOfTime()) return void (stats.truncated = true);
          const flushed = await flushSubscribers(ctx, batch);
          stats.claimed += flushed.claimed;
          stats.items += flushed.items;
          stats.skippedSubscribers += flushed.skippedSubscribers;
          stats.notAFit += flushed.notAFit;
          stats.gaveUp += flushed.gaveUp;
        });
      }
      // The next page is read while these batches run, once none waits to start.
      await batches.started();
      if (stats.truncated || batches.failed()) break;
    }
  } catch (error) {
    stopped = { error };
  }
  // Both awaited whatever happened above, so no write of this flush lands after it has returned.
  // Then one failure is thrown: a subscriber batch's first, else the hour's record's, else the due pages'.
  const recordFailed = await recorded;
  const batchFailed = await batches.settled().then(
    () => null,
    (error: unknown) => ({ error }),
  );
  const failed = batchFailed ?? recordFailed ?? stopped;
  if (failed) throw failed.error;
  return stats;
}

/** What the flush's parts share, built once: its settings, and what it reads once (the hour's record, coverage, postings). */
function flushContext(deps: FlushDeps, input: FlushInput): FlushContext {
  const commit = input.commit ?? true;
  return {
    ...deps,
    ...input,
    failpoint: deps.failpoint ?? (async () => {}),
    expireAt: addDays(input.now, input.retentionDays),
    commit,
    judge: deps.judge ?? null,
    runSender: commit ? (deps.runSender ?? null) : null,
    postings: flushPostings(deps.db, new Map((input.planned ?? []).map((p) => [p.posting.id, p.posting]))),
    composeBatchBytes: input.composeBatchBytes ?? COMPOSE_BATCH_BYTES,
    channelMessages: deps.channelMessages ?? (() => null),
    periodNow: memoBySchedule((schedule) => digestPeriod(schedule, latestDigestSlot(schedule, input.now))),
    coverage: once(() => readSourceCoverage(deps.db, input.now).catch(() => null)),
    hourSince: digestHourSince(deps.db, { hourUtc: input.digestHourUtc, now: input.now, commit }),
  };
}

/** Subscriber batches in progress at once: one renders (CPU) while the other waits on the store. */
const BATCHES_IN_FLIGHT = 2;

/**
 * The flush's subscriber batches, BATCHES_IN_FLIGHT at a time across due pages, started in order.
 * `started` resolves once every batch handed in so far has started (or the pipeline has failed), so the
 * caller reads the next page while the last ones run; `settled` awaits them all, even when one
 * failed, and then throws the first failure, so no write of this flush lands after it has returned.
 */
function batchPipeline() {
  const limit = pLimit(BATCHES_IN_FLIGHT);
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
