import type { BenchAi, BenchRunTimes } from './bench-result';
import type { ModelUsage } from './model-usage';

/**
 * `npm run bench -- --ai`: what the AI verdict stage costs on the bench's workload, from runs of
 * the same workload with the model off and on. Wall times are compared as medians, since one run
 * varies by about ±15%; counts come from the model fake and from Scout's aiUsage documents.
 */

export type ModelRun = { model: 'off' | 'on'; ms: BenchRunTimes; deliveriesClaimed: number; usage: ModelUsage | null };

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const times = (runs: ModelRun[], key: keyof BenchRunTimes) => runs.map((r) => r.ms[key]);
const medianTimes = (runs: ModelRun[]): BenchRunTimes => ({
  cycle: median(times(runs, 'cycle')),
  flush: median(times(runs, 'flush')),
  both: median(times(runs, 'both')),
});
const perTime = (f: (key: keyof BenchRunTimes) => number): BenchRunTimes => ({ cycle: f('cycle'), flush: f('flush'), both: f('both') });

export function summarizeModelRuns(input: {
  runs: ModelRun[];
  model: string;
  delayMs: number;
  config: BenchAi['config'];
  repeats: number;
}): BenchAi {
  const off = input.runs.filter((r) => r.model === 'off');
  const on = input.runs.filter((r) => r.model === 'on');
  const medianMs = { off: medianTimes(off), on: medianTimes(on) };
  const usage = on.map((r) => r.usage ?? { requests: { cycle: 0, flush: 0 }, tokens: { total: 0, prompt: 0, completion: 0, calls: 0 } });
  const totals = usage.map((u) => u.requests.cycle + u.requests.flush);
  const deliveriesClaimed = median(on.map((r) => r.deliveriesClaimed));
  const requests = median(totals);
  const tokens = median(usage.map((u) => u.tokens.total));
  return {
    model: input.model,
    delayMs: input.delayMs,
    config: input.config,
    repeats: input.repeats,
    runs: input.runs.map((r) => ({ model: r.model, ms: r.ms })),
    medianMs,
    addedMs: perTime((key) => medianMs.on[key] - medianMs.off[key]),
    ratio: perTime((key) => medianMs.on[key] / Math.max(1, medianMs.off[key])),
    modelRequests: {
      cycle: median(usage.map((u) => u.requests.cycle)),
      flush: median(usage.map((u) => u.requests.flush)),
      total: requests,
      min: Math.min(...totals),
      max: Math.max(...totals),
    },
    tokens: {
      total: tokens,
      prompt: median(usage.map((u) => u.tokens.prompt)),
      completion: median(usage.map((u) => u.tokens.completion)),
      calls: median(usage.map((u) => u.tokens.calls)),
      source: 'aiUsage',
    },
    deliveriesClaimed,
    callsPerDelivery: requests / Math.max(1, deliveriesClaimed),
    tokensPerDelivery: tokens / Math.max(1, deliveriesClaimed),
  };
}

const n = (value: number) => value.toLocaleString('en-US');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** Rounded first, so a difference under 0.05 s reads +0.0 s, never −0.0 s. */
const signedSeconds = (ms: number) => {
  const tenths = Math.round(ms / 100);
  return `${tenths < 0 ? '−' : '+'}${(Math.abs(tenths) / 10).toFixed(1)} s`;
};

/** The --ai figures as the bench prints them: a Markdown table of the medians, then the counts. */
export function modelFigureLines(ai: BenchAi): string[] {
  const lines: string[] = [];
  lines.push(
    `\n| model off vs on (fake model, ${ai.delayMs} ms a request; median of ${ai.repeats} run${ai.repeats === 1 ? '' : 's'} each) | model off | model on | added |`,
  );
  lines.push('| --- | --- | --- | --- |');
  for (const [label, key] of [
    ['06:00 cycle', 'cycle'],
    ['08:05 flush', 'flush'],
    ['both runs', 'both'],
  ] as const) {
    lines.push(
      `| ${label} | ${seconds(ai.medianMs.off[key])} | ${seconds(ai.medianMs.on[key])} | ${signedSeconds(ai.addedMs[key])} (${ai.ratio[key].toFixed(2)}×) |`,
    );
  }
  const r = ai.modelRequests;
  const varied = r.min === r.max ? '' : ` (varied from ${n(r.min)} to ${n(r.max)} across runs)`;
  lines.push(
    `\nmodel requests: ${n(r.total)} (06:00 cycle ${n(r.cycle)} + 08:05 flush ${n(r.flush)}), counted by the fake${varied}; AI_CONCURRENCY ${ai.config.AI_CONCURRENCY}, AI_MAX_CALLS_PER_RUN ${n(ai.config.AI_MAX_CALLS_PER_RUN)}, AI_DAILY_TOKEN_BUDGET ${n(ai.config.AI_DAILY_TOKEN_BUDGET)}`,
  );
  if (r.total === 0) lines.push('  no model requests: the verdict stage was configured but never asked (is it wired into the cycle?)');
  lines.push(
    `model calls per delivery: ${ai.callsPerDelivery.toFixed(3)} (${n(r.total)} requests / ${n(ai.deliveriesClaimed)} deliveries claimed)`,
  );
  const t = ai.tokens;
  lines.push(
    `tokens per delivery: ${ai.tokensPerDelivery.toFixed(1)} (${n(t.total)} tokens / ${n(ai.deliveriesClaimed)} deliveries; from the aiUsage/{day} documents: the usage the fake reported, as Scout counts it against AI_DAILY_TOKEN_BUDGET — ${n(t.prompt)} prompt + ${n(t.completion)} completion in ${n(t.calls)} calls)`,
  );
  if (t.calls !== r.total)
    lines.push(
      `  aiUsage counts ${n(t.calls)} calls against the fake's ${n(r.total)} requests: a request answered with an error, or not at all, records no usage`,
    );
  return lines;
}
