/**
 * One caller of the endpoint's handler, as one scheduler (or one shard's scheduler) calls it, with
 * every phase of every run traced against the process's Firestore counter. The bench uses it in
 * process with one shard, and in one process per shard with several (shard-process.ts), so each
 * shard's counts are its own and its peak memory is a process's, as deployed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { handleCronRequest } from '../../lib/cron/handle-cron-request';
import { senderLane } from '../../lib/outbox/run-sender';
import type { CyclePhase, RunAnswer, SenderTiming } from '../../lib/ledger/runs';
import { loadConfig, type Tuning } from '../../lib/runtime/config';
import { noFailpoints } from '../../lib/runtime/failpoints';
import { silentLogger } from '../../lib/runtime/logger';
import type { AppDeps } from '../../lib/wiring/app-deps';
import { buildDeps } from '../../lib/wiring/production-deps';
import type { CountsByCollection, FirestoreCounter, LaneCounts } from './firestore-counter';

export type Counts = { reads: number; writes: number; roundTrips: number };
/** `collections`: the phase's reads and writes by collection, for the bill; not written to the JSON result. */
export type PhaseRow = { phase: CyclePhase; ms: number; shard: number; collections: CountsByCollection } & Counts;

/** What one caller's run answered and cost: its JSON, its traced phases, and everything it asked of the store. */
export type ShardCall = {
  shard: number;
  body: RunAnswer;
  phases: PhaseRow[];
  ms: number;
  total: Counts;
  collections: CountsByCollection;
  /** The calling process's peak RSS so far (the shard's process with several shards). */
  peakRssMb: number;
};

export const BENCH_SECRET = 'bench-cron-secret-0123456789';

export const addCounts = (a: Counts, b: Counts): Counts => ({
  reads: a.reads + b.reads,
  writes: a.writes + b.writes,
  roundTrips: a.roundTrips + b.roundTrips,
});
export const diff = (a: Counts, b: Counts): Counts => ({
  reads: b.reads - a.reads,
  writes: b.writes - a.writes,
  roundTrips: b.roundTrips - a.roundTrips,
});
export const diffByCollection = (a: CountsByCollection, b: CountsByCollection): CountsByCollection => {
  const out: CountsByCollection = {};
  for (const [collection, after] of Object.entries(b)) {
    const before = a[collection] ?? { reads: 0, writes: 0, deletes: 0 };
    const d = { reads: after.reads - before.reads, writes: after.writes - before.writes, deletes: after.deletes - before.deletes };
    if (d.reads !== 0 || d.writes !== 0) out[collection] = d;
  }
  return out;
};
export function addByCollection(a: CountsByCollection, b: CountsByCollection): CountsByCollection {
  const out: CountsByCollection = { ...a };
  for (const [collection, c] of Object.entries(b)) {
    const seen = out[collection] ?? { reads: 0, writes: 0, deletes: 0 };
    out[collection] = { reads: seen.reads + c.reads, writes: seen.writes + c.writes, deletes: seen.deletes + c.deletes };
  }
  return out;
}

/**
 * The deployment's environment as the bench configures it, and the constants it tunes for its
 * shape: every caller, in any process, builds its deps from these.
 */
export function benchDeps(env: Record<string, string | undefined>, tuning: Tuning = {}): AppDeps {
  return { ...buildDeps({ ...loadConfig(env), tuning }), log: silentLogger, failpoint: noFailpoints };
}

/**
 * The channels' dispatch runs beside the emails' (lib/cycle/run-cycle.ts): a process-wide count
 * taken over either phase would hold the other's work too. The messages phase is counted in a lane
 * of its own, and taken off every other row that overlaps it.
 */
export const messagesLane = new AsyncLocalStorage<string>();
/** The counter's lane resolver for a bench process: the channels' dispatch, else the run's sender. */
export const benchLane = () => messagesLane.getStore() ?? senderLane.getStore();

/** The peak RSS of this process, sampled every 100 ms from now on. */
export function trackPeakMemory() {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  timer.unref();
  return {
    peakMb: () => Math.max(peak, process.memoryUsage().rss) / 1024 / 1024,
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

/**
 * A caller for shard `shard` of `shards` (1: the unsharded endpoint). Each call runs the handler
 * at the given clock and answers its body, its phases and its counts. The run's sender works
 * alongside the claim and the flush in its own counter lane: what it did during them is moved onto
 * the run's dispatch row, and the time they waited for room in its queue is taken off theirs.
 */
export function shardCaller(input: {
  deps: AppDeps;
  counter: FirestoreCounter;
  shard: number;
  shards: number;
  peakRssMb: () => number;
}): (now: string) => Promise<ShardCall> {
  const { deps, counter, shard, shards } = input;
  const lane = shards > 1 ? `${shard}-of-${shards}` : 'run';
  const channelsLane = `${lane}:messages`;
  const noLane: LaneCounts = { reads: 0, writes: 0, roundTrips: 0, collections: {} };
  const laneDiff = (before: LaneCounts, after: LaneCounts): LaneCounts => ({
    ...diff(before, after),
    collections: diffByCollection(before.collections, after.collections),
  });
  let carried: LaneCounts = noLane;
  let phases: PhaseRow[] = [];
  const traced: AppDeps = {
    ...deps,
    trace: async (phase: CyclePhase, step) => {
      const before = counter.snapshot();
      const beforeByCollection = counter.byCollection();
      const laneBefore = counter.byLane()[lane] ?? noLane;
      const channelsBefore = counter.byLane()[channelsLane] ?? noLane;
      const started = Date.now();
      try {
        return phase === 'messages' ? await messagesLane.run(channelsLane, step) : await step();
      } finally {
        const sending = laneDiff(laneBefore, counter.byLane()[lane] ?? noLane);
        // The channels' dispatch's work while this phase ran: its own row, and no other's.
        const beside = laneDiff(channelsBefore, counter.byLane()[channelsLane] ?? noLane);
        const toCarry = { ...addCounts(carried, sending), collections: addByCollection(carried.collections, sending.collections) };
        const all = diff(before, counter.snapshot());
        const allByCollection = diffByCollection(beforeByCollection, counter.byCollection());
        const counts = diff(beside, all);
        const collections = diffByCollection(beside.collections, allByCollection);
        const own = { ...diff(sending, counts), collections: diffByCollection(sending.collections, collections) };
        if (phase === 'messages') {
          phases.push({ phase, shard, ms: Date.now() - started, ...beside });
        } else if (phase === 'dispatch') {
          carried = noLane;
          phases.push({
            phase,
            shard,
            ms: Date.now() - started,
            ...addCounts(own, toCarry),
            collections: addByCollection(own.collections, toCarry.collections),
          });
        } else {
          carried = toCarry;
          phases.push({ phase, shard, ms: Date.now() - started, ...own });
        }
      }
    },
  };
  return async (now: string) => {
    const query = shards > 1 ? `&shard=${shard}&shards=${shards}` : '';
    const before = counter.snapshot();
    const beforeByCollection = counter.byCollection();
    const started = Date.now();
    const res = await handleCronRequest(
      new Request(`https://scout.example.com/api/cron?now=${now}${query}`, { headers: { authorization: `Bearer ${BENCH_SECRET}` } }),
      traced,
    );
    const answer: unknown = await res.json();
    if (res.status !== 200) throw new Error(`shard ${shard}: cycle failed: ${res.status} ${JSON.stringify(answer)}`);
    const body = answer as RunAnswer;
    const ms = Date.now() - started;
    const rows = phases;
    phases = [];
    // The claim and the flush waited for room in the sender's queue: that is sending time, not
    // theirs. Their rows keep their own work; the dispatch row is the sender's time plus what the
    // dispatch step did after the sender was done (rows earlier runs left).
    const sender: SenderTiming | null = body.sender ?? null;
    if (sender)
      for (const row of rows) {
        if (row.phase === 'claim') row.ms -= sender.waitedMs.claim;
        if (row.phase === 'flush') row.ms -= sender.waitedMs.flush;
        if (row.phase === 'dispatch') row.ms = sender.busyMs + Math.max(0, row.ms - sender.waitedMs.drain);
      }
    return {
      shard,
      body,
      phases: rows,
      ms,
      total: diff(before, counter.snapshot()),
      collections: diffByCollection(beforeByCollection, counter.byCollection()),
      peakRssMb: input.peakRssMb(),
    };
  };
}
