import type { CyclePhase } from '../../lib/ledger/runs';
import type { DayBill, Ops, Prices, StorageBill, UnitCosts } from './bill';
import type { StoredBytes } from './stored-bytes';
import type { EmulatorFloor } from './floor';
import type { BenchChannels } from './bench-channels';
import type { BenchPerDelivery } from './per-delivery';

/**
 * What `npm run bench -- --json <path>` writes: the figures the bench prints, in a form another
 * script can read (`npm run bench:scaling` runs one bench per point and reads this back).
 * Times are in ms, memory in MB.
 */
export type BenchCounts = { reads: number; writes: number; roundTrips: number };
/** A run's label: `06:00 cycle`, then `08:05 flush` (utc08) or `09:00 flush` … `+1d 06:00 flush` (spread). */
export type BenchRun = string;
/** `shard`: which shard's caller ran it (0 with one caller; absent in results written before shards had processes). */
export type BenchPhaseRow = { run: BenchRun; phase: CyclePhase; ms: number; shard?: number } & BenchCounts;

export type BenchNaive = {
  matchMs: number;
  claimMs: number;
  /** Time spent sending the sampled emails (`--naive-send-limit`). */
  sendMs: number;
  /** sendMs per sent email × every email, the unsent ones included. */
  extrapolatedSendMs: number;
  /** matchMs + claimMs + extrapolatedSendMs. */
  totalMs: number;
  candidates: number;
  deliveriesWritten: number;
  emailsSent: number;
  emailsSkipped: number;
  providerRequests: number;
  /** naive totalMs / Scout's (cycle + flush) ms. */
  speedup: number;
  /** naive round trips / Scout's. */
  roundTripRatio: number;
} & BenchCounts;

/** Wall time of one Scout run set, ms: the 06:00 cycle, the runs after it (summed), and both. */
export type BenchRunTimes = { cycle: number; flush: number; both: number };

/**
 * `--ai`: the same workload run with the model off and on (the model fake, every answer
 * `delayMs` late), `repeats` times each, alternating. Counts are the median over the model-on
 * runs (they are the same in every run unless something went wrong: min and max say).
 */
export type BenchAi = {
  model: string;
  /** The fake's delay on every request. */
  delayMs: number;
  /** The app config the model-on runs had. */
  config: { AI_CONCURRENCY: number; AI_MAX_CALLS_PER_RUN: number; AI_DAILY_TOKEN_BUDGET: number };
  repeats: number;
  /** Each run's wall times, in the order they ran. */
  runs: { model: 'off' | 'on'; ms: BenchRunTimes }[];
  medianMs: { off: BenchRunTimes; on: BenchRunTimes };
  /** on − off, of the medians. */
  addedMs: BenchRunTimes;
  /** on / off, of the medians. */
  ratio: BenchRunTimes;
  /** Counted by the fake (every request it received, retries included), per run. */
  modelRequests: { cycle: number; flush: number; total: number; min: number; max: number };
  /** Summed over the run's aiUsage/{day} documents: the usage the fake reported, as Scout counted it against AI_DAILY_TOKEN_BUDGET. */
  tokens: { total: number; prompt: number; completion: number; calls: number; source: 'aiUsage' };
  /** Deliveries claimed (instant + queued) with the model on: the denominator of the two figures below. */
  deliveriesClaimed: number;
  callsPerDelivery: number;
  tokensPerDelivery: number;
};

/** `npm run bench:render -- --json`: ms per email, React's render() against the prerendered emails, medians over `repeats` rounds. */
export type RenderFigures = {
  emails: number;
  repeats: number;
  results: { name: string; reactMs: number; slotMs: number; speedup: number }[];
};

/** One phase (or sum of phases) against the emulator's floor: floorMs is what its reads and writes take at the floor's rates. */
export type BenchFloorRatio = {
  run: BenchRun;
  phase: string;
  ms: number;
  reads: number;
  writes: number;
  floorMs: number;
  timesFloor: number | null;
};

/** The Firestore bill of a realistic day (bill.ts): the costs per unit of work the run counted, and the day at each size. */
export type BenchBill = {
  prices: Prices & { location: string; source: string };
  costs: UnitCosts;
  days: DayBill[];
  /** The same days at a regional location's list price (half of nam5's). */
  regional: { prices: Prices & { location: string; source: string }; days: DayBill[] };
  /** Every operation of the bench's runs (idle run and the TTL's deletes to come included), and the same rebuilt from `costs`: equal when nothing was left out. */
  counted: Ops;
  rebuilt: Ops;
  /** What the store holds at the end of the day, sized as Firestore bills it (stored-bytes.ts), and the steady state of a realistic day at each size. */
  stored: StoredBytes;
  storage: StorageBill[];
  /** The realistic day's emails as a month, and the cheapest Resend plan for it, at each size. */
  email: { subscribers: number; emailsPerMonth: number; resend: { plan: string; dollars: number } }[];
  /** Everything a month per 1,000 subscribers at each size: operations at each price list plus storage. */
  total: { subscribers: number; nam5: number; regional: number }[];
};

export type BenchResult = {
  version: 1;
  finishedAt: string;
  /** The arguments run-bench.ts was given. */
  args: string[];
  shape: { U: number; J: number; matchRate: number };
  providerRatePerSec: number;
  emulatorPort: number;
  /** True when an emulator already answered on the port and the bench shared it (its timings then include that other load). */
  emulatorShared: boolean;
  /** Seeding the subscribers, not counted in the figures below. */
  seedMs: number;
  /** The repair sweep that built the match index after seeding (not counted in the runs). */
  matchIndexSweep?: { runs: number; checked: number; drift: number; ms: number; reads: number; writes: number; roundTrips: number };
  /** Where the daily subscribers' digest hours fall (bench-world.ts); absent in results written before it. */
  digestWorld?: 'spread' | 'utc08';
  phases: BenchPhaseRow[];
  /** `flush`: every run after the cycle, summed. */
  totals: Record<'cycle' | 'flush' | 'both', { ms: number } & BenchCounts>;
  /**
   * Per run (the cycle first, whose flush takes the digests already past their hour): the daily
   * subscribers due by their schedules, the digests claimed, the flush phase's and the run's counts.
   */
  flushes?: { run: BenchRun; due: number; digests: number; flush: { reads: number; writes: number }; total: BenchCounts }[];
  matches: number;
  deliveriesClaimed: number;
  instantDeliveries: number;
  queued: number;
  emails: { alerts: number; digests: number; receivedBySink: number };
  providerRequests: { cycle: number; flush: number; total: number };
  /**
   * The same requests as the provider (the sink) counted them: admitted, and refused with a 429 by
   * its rate limit, by the cycle and by the runs after it. Absent from results written before it.
   */
  providerSaw?: { cycle: { admitted: number; refused: number }; flush: { admitted: number; refused: number } };
  /** The run stats' `partial` flag: work left for a later run (run budget, postings-per-run cap, truncated digests). */
  partial: { cycle: boolean; flush: boolean };
  failures: number;
  /** Peak RSS of the bench process during Scout's runs (seeding included; the sink and the emulator run apart). */
  /** The process that ran Scout: the bench's own with one caller; with --shards n, the largest of the n shard processes'. */
  peakRssMb: number;
  /**
   * With --shards n (each shard's calls in a process of its own): per shard, its process's peak RSS,
   * and per run what each shard's call answered (its wall time as the bench saw it, the run's own
   * durationMs, partial). Null with one caller.
   */
  shards: {
    count: number;
    peakRssMb: number[];
    runs: { run: BenchRun; calls: { shard: number; ms: number; durationMs: number; partial: boolean }[] }[];
  } | null;
  /** Null with --no-naive (and with --ai, which runs no naive baseline). */
  naive: BenchNaive | null;
  /** With --ai only; the figures above are then the last model-on run's. */
  ai?: BenchAi;
  /** The emulator's floor, measured before Scout's runs, and each phase against it (absent in results written before it; no ratios with --shards > 1). */
  floor?: EmulatorFloor & { ratios: BenchFloorRatio[] };
  /** The render bench, run alongside (null with --no-render; absent in results written before it). */
  render?: RenderFigures | null;
  /** Null with --shards > 1: the shards' phases overlap in the counts the bill splits. */
  bill?: BenchBill | null;
  /** Reads and writes per claimed delivery by phase, the channels' messages phase among them (absent in results written before it). */
  perDelivery?: BenchPerDelivery;
  /** `--channels`: requests per kind at the stand-in, messages per kind (null without it; absent in results written before it). */
  channels?: BenchChannels | null;
};
