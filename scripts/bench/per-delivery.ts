import type { CyclePhase } from '../../lib/ledger/runs';
import type { PhaseRow } from './shard-caller';

/**
 * Reads and writes per claimed delivery, by phase: what the claim, the flush, the emails' dispatch
 * and the channels' (messages) cost for each delivery, in the 06:00 cycle and in the runs after it.
 * The figure `--channels` moves: a channel's message is created in the claim's write (instant) or
 * the flush's (digest), and sent in the messages phase; run the bench with and without it to
 * compare (docs/performance.md, "With channels").
 */
export const PER_DELIVERY_PHASES: readonly CyclePhase[] = ['claim', 'flush', 'dispatch', 'messages'];

export type BenchPerDeliveryRow = {
  run: string;
  phase: CyclePhase | 'run';
  reads: number;
  writes: number;
  readsPerDelivery: number;
  writesPerDelivery: number;
};
export type BenchPerDelivery = { deliveries: number; rows: BenchPerDeliveryRow[] };

/** `runs`: each run label (or group of runs) with its traced phase rows and its whole counts. */
export function perDelivery(
  runs: { run: string; phases: PhaseRow[]; total: { reads: number; writes: number } }[],
  deliveries: number,
): BenchPerDelivery {
  const per = (n: number) => n / Math.max(1, deliveries);
  const row = (run: string, phase: BenchPerDeliveryRow['phase'], counts: { reads: number; writes: number }): BenchPerDeliveryRow => ({
    run,
    phase,
    reads: counts.reads,
    writes: counts.writes,
    readsPerDelivery: per(counts.reads),
    writesPerDelivery: per(counts.writes),
  });
  const rows = runs.flatMap(({ run, phases, total }) => [
    ...PER_DELIVERY_PHASES.map((phase) =>
      row(
        run,
        phase,
        phases
          .filter((p) => p.phase === phase)
          .reduce((sum, p) => ({ reads: sum.reads + p.reads, writes: sum.writes + p.writes }), { reads: 0, writes: 0 }),
      ),
    ),
    row(run, 'run', total),
  ]);
  return { deliveries, rows };
}

export function perDeliveryLines(p: BenchPerDelivery): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  return [
    `\nreads and writes per claimed delivery (${n(p.deliveries)} deliveries), by phase; messages is the channels' dispatch, beside the emails' (counted in a lane of its own):\n`,
    '| run | phase | reads | writes | reads per delivery | writes per delivery |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...p.rows.map(
      (r) =>
        `| ${r.run} | ${r.phase === 'run' ? '**whole run**' : r.phase} | ${n(r.reads)} | ${n(r.writes)} | ${r.readsPerDelivery.toFixed(3)} | ${r.writesPerDelivery.toFixed(3)} |`,
    ),
  ];
}
