import type { CyclePhase } from '../../lib/ops/runs';

/**
 * What `npm run bench -- --json <path>` writes: the figures the bench prints, in a form another
 * script can read (`npm run bench:scaling` runs one bench per point and reads this back).
 * Times are in ms, memory in MB.
 */
export type BenchCounts = { reads: number; writes: number; roundTrips: number };
export type BenchRun = '06:00 cycle' | '08:05 flush';
export type BenchPhaseRow = { run: BenchRun; phase: CyclePhase; ms: number } & BenchCounts;

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
  phases: BenchPhaseRow[];
  totals: Record<'cycle' | 'flush' | 'both', { ms: number } & BenchCounts>;
  matches: number;
  deliveriesClaimed: number;
  instantDeliveries: number;
  queued: number;
  emails: { alerts: number; digests: number; receivedBySink: number };
  providerRequests: { cycle: number; flush: number; total: number };
  /** The run stats' `partial` flag: work left for a later run (run budget, postings-per-run cap, truncated digests). */
  partial: { cycle: boolean; flush: boolean };
  failures: number;
  /** Peak RSS of the bench process during Scout's runs (seeding included; the sink and the emulator run apart). */
  peakRssMb: number;
  /** Null with --no-naive. */
  naive: BenchNaive | null;
};
