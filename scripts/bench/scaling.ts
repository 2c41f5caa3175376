/**
 * npm run bench:scaling — how the cycle grows with subscribers (U) and with postings (J). Runs
 * `npm run bench -- --no-naive` once per point, each in a process of its own (so peak memory is
 * per point, and one point's heap does not carry into the next), reads each point's figures back
 * through `--json`, prints a table per series, and writes docs/bench-scaling.json (raw) and
 * docs/bench-scaling.svg (wall time and reads vs U, and vs J).
 *
 *   npm run bench:scaling                                  U = 1,000 10,000 50,000 100,000 at J = 500;
 *                                                          J = 100 500 2,000 at U = 10,000
 *   npm run bench:scaling -- --subscribers 1000,10000 --postings 100,500
 *   npm run bench:scaling -- --quick                       U = 200 1,000 2,000 at J = 100;
 *                                                          J = 50 100 200 at U = 1,000 (smoke check)
 *   npm run bench:scaling -- --emulator-port 8290
 *   npm run bench:scaling -- --replot                      tables and plot again from docs/bench-scaling.json
 *   npm run bench:scaling -- --keep 100000x500             that point as docs/bench-scaling.json has it, the rest run again
 *
 * The U series runs at --fixed-postings, the J series at --fixed-subscribers; each defaults to the
 * middle entry of the other list, so the shared point (U=10,000, J=500 by default) runs once and
 * serves both series. --emulator-port defaults to a free port, picked once for the whole run.
 *
 * A point of --sharded-from subscribers or more (default 100,000) runs as a sharded deployment:
 * --shards callers at once (default 4), each in a process of its own (run-bench's --shards), so
 * its peak memory is the largest shard process's and its wall times the slowest shard's.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { BenchResult } from './bench-result';
import { freePort, portInUse } from './free-port';

const root = fileURLToPath(new URL('../../', import.meta.url));
const RUN_BENCH = join(root, 'scripts/bench/run-bench.ts');
const TSX = join(root, 'node_modules/.bin/tsx');
const OUT_JSON = join(root, 'docs/bench-scaling.json');
const OUT_SVG = join(root, 'docs/bench-scaling.svg');

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv,
  options: {
    subscribers: { type: 'string' },
    postings: { type: 'string' },
    'fixed-subscribers': { type: 'string' },
    'fixed-postings': { type: 'string' },
    quick: { type: 'boolean', default: false },
    replot: { type: 'boolean', default: false },
    'emulator-port': { type: 'string' },
    keep: { type: 'string' },
    'sharded-from': { type: 'string', default: '100000' },
    shards: { type: 'string', default: '4' },
  },
});

const FULL = { subscribers: [1_000, 10_000, 50_000, 100_000], postings: [100, 500, 2_000] };
const QUICK = { subscribers: [200, 1_000, 2_000], postings: [50, 100, 200] };

function positiveInts(flag: string, raw: string): number[] {
  const list = raw.split(',').map((s) => Number(s.trim().replace(/_/g, '')));
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n <= 0))
    fail(`--${flag} takes positive integers separated by commas, got "${raw}"`);
  return list;
}
const middle = (list: number[]) => list[Math.floor((list.length - 1) / 2)];

function fail(message: string): never {
  console.error(`bench:scaling: ${message}`);
  process.exit(2);
}

/** The U series runs at a fixed J, the J series at a fixed U. */
type Series = { name: 'U' | 'J'; fixed: number; points: { U: number; J: number }[] };
/** ms: the whole child process, emulator start and seeding included. */
type PointOutcome = { U: number; J: number; ms: number; result: BenchResult | null; error: string | null };
type ScalingFile = {
  command: string;
  startedAt: string;
  finishedAt: string;
  machine: { cores: number; memoryGiB: number; node: string; platform: string };
  series: Series[];
  points: PointOutcome[];
};

const defaults = values.quick ? QUICK : FULL;
const uList = values.subscribers ? positiveInts('subscribers', values.subscribers) : defaults.subscribers;
const jList = values.postings ? positiveInts('postings', values.postings) : defaults.postings;
const fixedJ = values['fixed-postings'] ? positiveInts('fixed-postings', values['fixed-postings'])[0] : middle(jList);
const fixedU = values['fixed-subscribers'] ? positiveInts('fixed-subscribers', values['fixed-subscribers'])[0] : middle(uList);
const series: Series[] = [
  { name: 'U', fixed: fixedJ, points: uList.map((U) => ({ U, J: fixedJ })) },
  { name: 'J', fixed: fixedU, points: jList.map((J) => ({ U: fixedU, J })) },
];
const key = (p: { U: number; J: number }) => `${p.U}x${p.J}`;
const SHARDED_FROM = positiveInts('sharded-from', values['sharded-from'])[0];
const SHARDS = positiveInts('shards', values.shards)[0];
/** The callers a point runs with: a deployment this large shards its subscribers. */
const shardsFor = (point: { U: number }) => (point.U >= SHARDED_FROM ? SHARDS : 1);

let current: ReturnType<typeof spawn> | null = null;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // run-bench stops its emulator and sink on a signal; wait for that before leaving.
    if (current && current.exitCode === null) {
      current.once('exit', () => process.exit(signal === 'SIGINT' ? 130 : 143));
      current.kill(signal);
    } else process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

async function main() {
  if (values.replot) return replot();
  const port = values['emulator-port'] !== undefined ? Number(values['emulator-port']) : await freePort();
  if (!Number.isInteger(port) || port <= 0 || port > 65535) fail(`--emulator-port must be an integer between 1 and 65535`);
  const unique = [...new Map(series.flatMap((s) => s.points).map((p) => [key(p), p])).values()];
  const command = `npm run bench:scaling${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`;
  const startedAt = new Date();
  console.log(
    `${command}: ${unique.length} points, one run-bench process each (--no-naive), emulator port ${port}; ` +
      `U series at J=${fmt(fixedJ)}, J series at U=${fmt(fixedU)}`,
  );

  const tmp = await mkdtemp(join(tmpdir(), 'scout-bench-scaling-'));
  const outcomes = await keptPoints();
  try {
    for (const [i, point] of unique.entries()) {
      const kept = outcomes.get(key(point));
      if (kept) {
        console.log(
          `\n── point ${i + 1}/${unique.length}: U=${fmt(point.U)} J=${fmt(point.J)}: kept from ${relative(OUT_JSON)} (measured ${kept.result?.finishedAt}) ──`,
        );
        continue;
      }
      console.log(`\n── point ${i + 1}/${unique.length}: U=${fmt(point.U)} J=${fmt(point.J)} ──`);
      const outcome = await runPoint(point, port, join(tmp, `${key(point)}.json`));
      if (outcome.error) console.error(`bench:scaling: U=${point.U} J=${point.J} failed: ${outcome.error}`);
      outcomes.set(key(point), outcome);
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }

  const finishedAt = new Date();
  console.log(`\n${command} — ${finishedAt.toISOString()} (${((finishedAt.getTime() - startedAt.getTime()) / 60_000).toFixed(1)} min)`);
  for (const s of series) printSeries(s, outcomes);

  const raw: ScalingFile = {
    command,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    machine: { cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: process.platform },
    series,
    points: [...outcomes.values()],
  };
  if (raw.points.every((o) => !o.result)) {
    console.error(`bench:scaling: no point ran; ${relative(OUT_JSON)} and ${relative(OUT_SVG)} left as they were`);
    process.exitCode = 1;
    return;
  }
  await mkdir(dirname(OUT_JSON), { recursive: true });
  await writeFile(OUT_JSON, `${JSON.stringify(raw, null, 2)}\n`);
  await writeFile(OUT_SVG, await renderSvg(raw, outcomes));
  console.log(`\nwrote ${relative(OUT_JSON)} and ${relative(OUT_SVG)}`);

  const failed = [...outcomes.values()].filter((o) => o.error);
  if (failed.length > 0) {
    console.error(`bench:scaling: ${failed.length} of ${outcomes.size} points failed`);
    process.exitCode = 1;
  }
}

/**
 * --keep UxJ,…: those points as the last run measured them (each keeps its own finishedAt and
 * args), so one long point (U=100,000) need not run again when the others are re-measured.
 */
async function keptPoints(): Promise<Map<string, PointOutcome>> {
  const kept = new Map<string, PointOutcome>();
  if (!values.keep) return kept;
  const raw = JSON.parse(await readFile(OUT_JSON, 'utf8')) as ScalingFile;
  for (const name of values.keep.split(',').map((k) => k.trim())) {
    const point = raw.points.find((o) => key(o) === name && o.result);
    if (!point) fail(`--keep ${name}: no measured point U x J = ${name} in ${relative(OUT_JSON)}`);
    kept.set(name, point);
  }
  return kept;
}

/** The tables and the plot again from the raw file, without running anything (to change the plot after a long run). */
async function replot() {
  const raw = JSON.parse(await readFile(OUT_JSON, 'utf8')) as ScalingFile;
  const outcomes = new Map(raw.points.map((o) => [key(o), o]));
  console.log(`${raw.command} — ${raw.finishedAt}`);
  for (const s of raw.series) printSeries(s, outcomes);
  await writeFile(OUT_SVG, await renderSvg(raw, outcomes));
  console.log(`\nwrote ${relative(OUT_SVG)} from ${relative(OUT_JSON)}`);
}

async function runPoint(point: { U: number; J: number }, port: number, jsonPath: string): Promise<PointOutcome> {
  const started = Date.now();
  const done = (result: BenchResult | null, error: string | null): PointOutcome => ({ ...point, ms: Date.now() - started, result, error });
  // Each point starts and stops its own emulator: one left on the port would be shared and skew the timings.
  if (await portInUse(port)) return done(null, `port ${port} is in use (another emulator or bench?); pass --emulator-port`);
  // The series measure one cycle and one flush, as docs/bench-scaling.json always has: every digest at 08:00 UTC.
  // The render bench measures rendering alone, the same at every point: `npm run bench` runs it once is enough.
  const args = [
    RUN_BENCH,
    '--subscribers',
    String(point.U),
    '--postings',
    String(point.J),
    '--no-naive',
    '--digest-world',
    'utc08',
    '--no-render',
    '--shards',
    String(shardsFor(point)),
  ];
  args.push('--json', jsonPath, '--emulator-port', String(port));
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(TSX, args, { stdio: 'inherit', cwd: root });
    current = child;
    child.once('error', () => resolve(null));
    child.once('exit', (c) => resolve(c));
  });
  current = null;
  if (code !== 0) return done(null, `run-bench exited with ${code}`);
  try {
    return done(JSON.parse(await readFile(jsonPath, 'utf8')) as BenchResult, null);
  } catch (error) {
    return done(null, `no JSON result: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The figures one table row and one chart point are made of. */
function figures(r: BenchResult) {
  // Per run, the slowest shard's time (shards run at once); the runs one after the other.
  const sum = (pick: (phase: string) => boolean) => {
    const byRunAndShard = new Map<string, Map<number, number>>();
    for (const p of r.phases.filter((row) => pick(row.phase))) {
      const shards = byRunAndShard.get(p.run) ?? new Map<number, number>();
      shards.set(p.shard ?? 0, (shards.get(p.shard ?? 0) ?? 0) + p.ms);
      byRunAndShard.set(p.run, shards);
    }
    return [...byRunAndShard.values()].reduce((ms, shards) => ms + Math.max(...shards.values()), 0);
  };
  const t = r.totals.both;
  return {
    deliveries: r.deliveriesClaimed,
    /** fetch + match + claim + flush, both runs (06:00 cycle and 08:05 flush); not the emails' dispatch, nor the channels' beside it. */
    withoutDispatchS: sum((p) => p !== 'dispatch' && p !== 'messages') / 1000,
    dispatchS: sum((p) => p === 'dispatch') / 1000,
    reads: t.reads,
    writes: t.writes,
    roundTrips: t.roundTrips,
    readsPerDelivery: t.reads / Math.max(1, r.deliveriesClaimed),
    readsBudget: r.shape.U + r.shape.J + 2 * r.deliveriesClaimed,
    peakRssMb: r.peakRssMb,
    partial: r.partial.cycle || r.partial.flush,
    /** The 06:00 cycle without dispatch against the emulator's floor (absent in results written before the bench measured it). */
    cycleTimesFloor: r.floor?.ratios.find((x) => x.phase === 'cycle without dispatch')?.timesFloor ?? null,
  };
}

function printSeries(s: Series, outcomes: Map<string, PointOutcome>) {
  const title = s.name === 'U' ? `subscribers U, at J = ${fmt(s.fixed)}` : `postings J, at U = ${fmt(s.fixed)}`;
  console.log(`\n### Scaling in ${title}\n`);
  console.log(
    '| U | J | shards | deliveries | fetch+match+claim+flush | dispatch | reads | writes | round trips | reads / delivery | peak RSS | cycle × floor |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  let partial = false;
  for (const p of s.points) {
    const o = outcomes.get(key(p));
    if (!o?.result) {
      console.log(`| ${fmt(p.U)} | ${fmt(p.J)} | ${shardsFor(p)} | failed: ${o?.error ?? 'not run'} | | | | | | | | |`);
      continue;
    }
    const f = figures(o.result);
    partial ||= f.partial;
    console.log(
      `| ${fmt(p.U)} | ${fmt(p.J)} | ${o.result.shards?.count ?? 1} | ${fmt(f.deliveries)}${f.partial ? ' *' : ''} | ${f.withoutDispatchS.toFixed(1)} s | ${f.dispatchS.toFixed(1)} s | ${fmt(f.reads)} | ${fmt(f.writes)} | ${fmt(f.roundTrips)} | ${f.readsPerDelivery.toFixed(2)} | ${o.result.peakRssMb.toFixed(0)} MB | ${f.cycleTimesFloor === null ? '—' : `${f.cycleTimesFloor.toFixed(1)}×`} |`,
    );
  }
  console.log(
    '\nwall times sum the phases of the runs (06:00 cycle, 08:05 flush, and catch-up runs after a partial one), the slowest shard of each; reads, writes and round trips are every run and every shard',
  );
  console.log('peak RSS: the process that ran Scout (with shards, the largest shard process)');
  console.log(
    "cycle × floor: the 06:00 cycle's fetch + match + claim + flush over the time its reads and writes take at the emulator's floor",
  );
  if (partial)
    console.log('* the run reported `partial`: work left for a later run (run budget, 2,000 postings per run, truncated digests)');
}

async function renderSvg(raw: ScalingFile, outcomes: Map<string, PointOutcome>): Promise<string> {
  const all = raw.series;
  const sample = raw.points.find((o) => o.result)?.result;
  const shape = sample ? `${sample.shape.matchRate * 100}% match rate, provider ${sample.providerRatePerSec} requests/s, ` : '';
  type Row = { series: 'U' | 'J'; x: number; metric: 'time' | 'reads'; line: string; value: number };
  const rows: Row[] = [];
  for (const s of all) {
    for (const p of s.points) {
      const r = outcomes.get(key(p))?.result;
      if (!r) continue;
      const f = figures(r);
      const x = s.name === 'U' ? p.U : p.J;
      rows.push(
        { series: s.name, x, metric: 'time', line: 'fetch+match+claim+flush', value: f.withoutDispatchS },
        { series: s.name, x, metric: 'time', line: 'dispatch (provider-bound)', value: f.dispatchS },
        { series: s.name, x, metric: 'reads', line: 'reads measured', value: f.reads },
        { series: s.name, x, metric: 'reads', line: 'budget U + J + 2 × deliveries', value: f.readsBudget },
      );
    }
  }
  const lines: Record<Row['metric'], string[]> = {
    time: ['fetch+match+claim+flush', 'dispatch (provider-bound)'],
    reads: ['reads measured', 'budget U + J + 2 × deliveries'],
  };
  const SOLID = [1, 0];
  const DASHED = [6, 4];
  // One legend for colour and dash (the same field and the same legend settings merge them).
  const legend = { orient: 'bottom' as const, direction: 'vertical' as const, labelLimit: 0, symbolType: 'stroke', symbolSize: 300 };
  // Axis formats carry their own type: a bare ',' lets the tick step set a precision (2e+2).
  const chart = (s: Series, metric: Row['metric']) => ({
    title: `${metric === 'time' ? 'wall time' : 'Firestore reads'} vs ${s.name} (${s.name === 'U' ? `J = ${fmt(s.fixed)}` : `U = ${fmt(s.fixed)}`})`,
    width: 320,
    height: 220,
    data: { values: rows.filter((r) => r.series === s.name && r.metric === metric) },
    mark: { type: 'line' as const, point: true },
    encoding: {
      x: {
        field: 'x',
        type: 'quantitative' as const,
        title: s.name === 'U' ? 'U (subscribers)' : 'J (new postings)',
        axis: { format: ',d' },
      },
      y: {
        field: 'value',
        type: 'quantitative' as const,
        title: metric === 'time' ? 'wall time (s)' : 'reads (both runs)',
        axis: { format: metric === 'time' ? ',~f' : ',d' },
      },
      color: {
        field: 'line',
        type: 'nominal' as const,
        title: null,
        scale: { domain: lines[metric] },
        legend,
      },
      strokeDash: {
        field: 'line',
        type: 'nominal' as const,
        legend,
        scale: { domain: lines[metric], range: metric === 'time' ? [SOLID, SOLID] : [SOLID, DASHED] },
      },
    },
  });
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `Scout scaling — ${raw.command} — ${raw.finishedAt.slice(0, 10)}`,
      subtitle: [
        `one run-bench process per point (--no-naive), ${shape}${raw.machine.cores} cores, ${raw.machine.memoryGiB} GiB`,
        `wall times and reads cover every run: the 06:00 cycle, the 08:05 flush, catch-ups after a partial run; U ≥ ${fmt(SHARDED_FROM)} as ${SHARDS} shards, a process each`,
      ],
      anchor: 'start',
    },
    background: 'white',
    padding: 12,
    vconcat: all.map((s) => ({
      hconcat: [chart(s, 'time'), chart(s, 'reads')],
      resolve: { scale: { color: 'independent', strokeDash: 'independent' } },
    })),
    resolve: { scale: { color: 'independent', strokeDash: 'independent' } },
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const fmt = (n: number) => n.toLocaleString('en-US');
const relative = (path: string) => path.slice(root.length);

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
