import { describe, expect, it } from 'vitest';
import type { BenchAi } from '../../scripts/bench/bench-result';
import { median, modelFigureLines, summarizeModelRuns, type ModelRun } from '../../scripts/bench/model-figures';

const config: BenchAi['config'] = {
  AI_CONCURRENCY: 2,
  AI_MAX_CALLS_PER_RUN: 10_000,
  AI_DAILY_TOKEN_BUDGET: 1_000_000_000,
};

const off = (cycle: number, flush: number): ModelRun => ({
  model: 'off',
  ms: { cycle, flush, both: cycle + flush },
  deliveriesClaimed: 1000,
  usage: null,
});
const on = (cycle: number, flush: number, requests = { cycle: 50, flush: 50 }, tokens = 40_000): ModelRun => ({
  model: 'on',
  ms: { cycle, flush, both: cycle + flush },
  deliveriesClaimed: 1000,
  usage: { requests, tokens: { total: tokens, prompt: tokens - 4_000, completion: 4_000, calls: requests.cycle + requests.flush } },
});

const summarize = (runs: ModelRun[]) => summarizeModelRuns({ runs, model: 'scout-fake-1', delayMs: 50, config, repeats: 3 });

describe('bench --ai: the figures', () => {
  it.each([
    [[], 0],
    [[5], 5],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[10, 10, 1_000], 10],
  ])('median(%j) = %d', (values, expected) => {
    expect(median(values)).toBe(expected);
  });

  it('compares medians, so one slow run on either side moves nothing', () => {
    const ai = summarize([
      off(10_000, 5_000),
      on(12_000, 6_000),
      on(13_000, 6_000),
      off(11_000, 5_000),
      off(90_000, 5_000),
      on(12_500, 60_000),
    ]);
    expect(ai.medianMs.off).toEqual({ cycle: 11_000, flush: 5_000, both: 16_000 });
    expect(ai.medianMs.on).toEqual({ cycle: 12_500, flush: 6_000, both: 19_000 });
    expect(ai.addedMs).toEqual({ cycle: 1_500, flush: 1_000, both: 3_000 });
    expect(ai.ratio.both).toBeCloseTo(19 / 16);
    expect(ai.runs.map((r) => r.model)).toEqual(['off', 'on', 'on', 'off', 'off', 'on']);
  });

  it('divides requests and tokens by the deliveries claimed with the model on', () => {
    const ai = summarize([off(1, 1), on(2, 2), off(1, 1), on(2, 2)]);
    expect(ai.modelRequests).toEqual({ cycle: 50, flush: 50, total: 100, min: 100, max: 100 });
    expect(ai.tokens).toEqual({ total: 40_000, prompt: 36_000, completion: 4_000, calls: 100, source: 'aiUsage' });
    expect(ai.callsPerDelivery).toBe(0.1);
    expect(ai.tokensPerDelivery).toBe(40);
  });

  it('says when the runs disagreed on the request count, instead of hiding it in the median', () => {
    const ai = summarize([on(1, 1), on(1, 1, { cycle: 70, flush: 50 }), on(1, 1)]);
    expect(ai.modelRequests).toMatchObject({ total: 100, min: 100, max: 120 });
    expect(modelFigureLines(ai).join('\n')).toContain('varied from 100 to 120 across runs');
  });

  it('prints the table and names zero model requests as a stage that was never asked', () => {
    const lines = modelFigureLines(summarize([off(10_000, 5_000), on(10_020, 5_000, { cycle: 0, flush: 0 }, 0)]));
    expect(lines[0]).toBe('\n| model off vs on (fake model, 50 ms a request; median of 3 runs each) | model off | model on | added |');
    expect(lines).toContain('| 06:00 cycle | 10.0 s | 10.0 s | +0.0 s (1.00×) |');
    expect(lines.join('\n')).toContain('no model requests: the verdict stage was configured but never asked');
    expect(lines).toContain('model calls per delivery: 0.000 (0 requests / 1,000 deliveries claimed)');
  });

  it('a faster model-on median reads as a negative difference, never as −0.0', () => {
    const lines = modelFigureLines(summarize([off(10_000, 5_000), on(9_000, 4_970)]));
    expect(lines).toContain('| 06:00 cycle | 10.0 s | 9.0 s | −1.0 s (0.90×) |');
    expect(lines).toContain('| 08:05 flush | 5.0 s | 5.0 s | +0.0 s (0.99×) |');
  });
});
