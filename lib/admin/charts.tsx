import { Fragment } from 'react';
import type { RunSummary } from '../ops/read-dashboard';

/**
 * Runs over time as small bar charts, drawn on the server as inline SVG in JSX: no script, no
 * library, every label escaped by React. Colours come from the stylesheet's variables (the
 * `.chart` classes in public/scout.css), so the charts follow light and dark mode with the page.
 */
export type Bar = { value: number; tone: 'normal' | 'warn' | 'bad'; hint: string };

export type BarChartData = {
  title: string;
  /** What the y axis counts, shown in the caption ("seconds", "emails"). */
  unit: string;
  bars: Bar[];
  /** Labels under the first and the last bar. */
  from: string;
  to: string;
  format?: (value: number) => string;
};

const W = 360;
const H = 160;
const LEFT = 44;
const RIGHT = 10;
const TOP = 12;
const BOTTOM = 34;
const PLOT_W = W - LEFT - RIGHT;
const PLOT_H = H - TOP - BOTTOM;

/** A tidy number at or above `max`, so the top tick reads 10, 20, 25, 50… and never 37. */
export function niceCeiling(max: number): number {
  if (!(max > 0)) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  for (const f of [1, 2, 2.5, 5, 10]) if (f * step >= max) return f * step;
  return 10 * step;
}

const plain = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

export function BarChart({ chart }: { chart: BarChartData }) {
  const format = chart.format ?? plain;
  const top = niceCeiling(Math.max(0, ...chart.bars.map((b) => b.value)));
  const ticks = [0, top / 2, top];
  const slot = PLOT_W / Math.max(1, chart.bars.length);
  const barW = Math.max(1, Math.min(24, slot * 0.72));
  const y = (v: number) => TOP + PLOT_H - (Math.max(0, v) / top) * PLOT_H;
  const r = (n: number) => n.toFixed(1);
  const peak = Math.max(0, ...chart.bars.map((b) => b.value));
  const label = `${chart.title}: ${chart.bars.length} run${chart.bars.length === 1 ? '' : 's'} from ${chart.from} to ${chart.to}, highest ${format(peak)} ${chart.unit}`;

  return (
    <svg className="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} xmlns="http://www.w3.org/2000/svg">
      <title>{label}</title>
      {ticks.map((t) => (
        <Fragment key={t}>
          <line className="grid" x1={LEFT} x2={W - RIGHT} y1={r(y(t))} y2={r(y(t))} />
          <text x={LEFT - 6} y={r(y(t) + 4)} textAnchor="end">
            {format(t)}
          </text>
        </Fragment>
      ))}
      {chart.bars.map((bar, i) => {
        const x = LEFT + i * slot + (slot - barW) / 2;
        const height = Math.max(bar.value > 0 ? 1 : 0, TOP + PLOT_H - y(bar.value));
        return (
          <rect key={i} className={`bar ${bar.tone}`} x={r(x)} y={r(TOP + PLOT_H - height)} width={r(barW)} height={r(height)}>
            <title>{bar.hint}</title>
          </rect>
        );
      })}
      <line className="axis" x1={LEFT} x2={W - RIGHT} y1={TOP + PLOT_H} y2={TOP + PLOT_H} />
      <text x={LEFT} y={H - 16} textAnchor="start">
        {chart.from}
      </text>
      <text x={W - RIGHT} y={H - 16} textAnchor="end">
        {chart.to}
      </text>
      <text x={LEFT + PLOT_W / 2} y={H - 3} textAnchor="middle">
        runs, oldest → newest
      </text>
    </svg>
  );
}

/** "11-30 06:00": short enough for an axis, in UTC like the rest of the page. */
const axisTime = (d: Date | null) => (d ? `${d.toISOString().slice(5, 10)} ${d.toISOString().slice(11, 16)}` : '?');

const seconds = (ms: number | null) => (ms ?? 0) / 1000;
const formatSeconds = (s: number) => (s >= 10 || Number.isInteger(s) ? String(Math.round(s)) : s.toFixed(1));

/** Duration, emails and failures per run: three small multiples over the same runs, oldest first. */
export function RunCharts({ runsNewestFirst }: { runsNewestFirst: RunSummary[] }) {
  if (runsNewestFirst.length === 0) return <p className="muted">No runs yet: the charts appear after the first one.</p>;
  const runs = [...runsNewestFirst].reverse();
  const from = axisTime(runs[0].startedAt);
  const to = axisTime(runs[runs.length - 1].startedAt);
  const when = (run: RunSummary) => `${run.startedAt?.toISOString() ?? '?'} ${run.runId}${run.shard ? ` (shard ${run.shard})` : ''}`;
  const charts: BarChartData[] = [
    {
      title: 'Duration per run',
      unit: 'seconds',
      from,
      to,
      format: formatSeconds,
      bars: runs.map((run) => ({
        value: seconds(run.durationMs),
        tone: run.errors.length > 0 || run.status === 'failed' ? 'bad' : run.partial ? 'warn' : 'normal',
        hint: `${when(run)}: ${formatSeconds(seconds(run.durationMs))} s, ${run.status}${run.partial ? ', partial' : ''}`,
      })),
    },
    {
      title: 'Emails sent per run',
      unit: 'emails',
      from,
      to,
      bars: runs.map((run) => ({ value: run.emailsSent, tone: 'normal', hint: `${when(run)}: ${run.emailsSent} sent` })),
    },
    {
      title: 'Failures per run',
      unit: 'failed emails and feeds',
      from,
      to,
      bars: runs.map((run) => ({ value: run.failures, tone: 'bad', hint: `${when(run)}: ${run.failures} failed` })),
    },
  ];
  return (
    <>
      <div className="charts">
        {charts.map((chart) => (
          <figure key={chart.title}>
            <figcaption>
              {chart.title} <span className="muted">({chart.unit})</span>
            </figcaption>
            <BarChart chart={chart} />
          </figure>
        ))}
      </div>
      <p className="legend muted">
        <span className="swatch"></span> run <span className="swatch warn"></span> partial (stopped by its time budget){' '}
        <span className="swatch bad"></span> with errors · hover a bar for its run
      </p>
    </>
  );
}
