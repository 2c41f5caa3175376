import { describe, expect, it } from 'vitest';
import { aiSettingsOf, aiVerdictsState, budgetPercent, readRunModel, sumRunModels, type AiSettings } from '../../lib/ops/ai-verdicts-state';
import type { ModelStats } from '../../lib/verdicts/judge-postings';

const settings: AiSettings = { model: 'scout-fake-1', dailyTokenBudget: 10_000, maxCallsPerRun: 3 };
const model = (m: Partial<ModelStats> = {}): ModelStats => ({ calls: 1, tokens: 100, judged: 2, notAFit: 0, fallbacks: {}, ...m });
const today = (tokens: number) => ({ day: '2026-11-30', tokens, calls: 4 });

describe('the AI verdict stage as the ops page shows it', () => {
  it('is off without settings, whatever the store holds: no budget, no sums', () => {
    expect(aiVerdictsState({ settings: null, today: null, runModels: [model()] })).toEqual({ state: 'off' });
  });

  it.each<[string, number, boolean]>([
    ['well under the budget', 2_500, false],
    ['one token short', 9_999, false],
    ['exactly the budget: the next call is refused', 10_000, true],
    ['past it (calls in flight overshoot)', 10_450, true],
  ])('budget spent %s? (%i tokens of 10,000)', (_name, tokens, spent) => {
    const state = aiVerdictsState({ settings, today: today(tokens), runModels: [] });
    expect(state).toMatchObject({ state: 'on', model: 'scout-fake-1', budgetSpent: spent, dailyTokenBudget: 10_000, maxCallsPerRun: 3 });
    if (state.state === 'on') expect(state.budgetResetsAt).toEqual(new Date('2026-12-01T00:00:00Z'));
  });

  it('sums the recent runs, tells the per-run cap from the daily tokens, and skips runs with the stage off', () => {
    const sum = sumRunModels(
      [
        null,
        model({ calls: 3, tokens: 900, judged: 6, notAFit: 2, fallbacks: { budget: 4 } }), // stopped by the cap
        model({ calls: 1, tokens: 300, judged: 2, fallbacks: { budget: 5, timeout: 1 } }), // stopped by the day's tokens
        model({ calls: 2, tokens: 200, judged: 0, fallbacks: { 'rate-limited': 2 } }),
      ],
      3,
    );
    expect(sum).toEqual({
      runs: 4,
      runsWithModel: 3,
      calls: 6,
      tokens: 1_400,
      judged: 8,
      notAFit: 2,
      fallbacks: { budget: 9, timeout: 1, 'rate-limited': 2 },
      runsOverBudget: 2,
      runsAtCallCap: 1,
    });
    expect(sumRunModels([model({ fallbacks: { budget: 1 } })]).runsAtCallCap).toBeNull(); // the CLI knows no cap
  });

  it('reads a stored run record defensively: null when off, 0 for anything that is not a count', () => {
    expect(readRunModel(null)).toBeNull();
    expect(readRunModel(undefined)).toBeNull();
    expect(readRunModel({ calls: 2, tokens: 'many', judged: -1, notAFit: 1, fallbacks: { budget: 2, timeout: 'x', refusal: 0 } })).toEqual({
      calls: 2,
      tokens: 0,
      judged: 0,
      notAFit: 1,
      fallbacks: { budget: 2 },
    });
  });

  it('takes from the configuration only the model and the limits: never the key or the server address', () => {
    const config = {
      AI_BASE_URL: 'https://user:pass@llm.internal/v1',
      AI_API_KEY: 'sk-secret-never-shown',
      AI_MODEL: 'gpt-4o-mini',
      AI_DAILY_TOKEN_BUDGET: 50_000,
      tuning: { AI_MAX_CALLS_PER_RUN: 20 },
    };
    const shown = aiSettingsOf(config);
    expect(shown).toEqual({ model: 'gpt-4o-mini', dailyTokenBudget: 50_000, maxCallsPerRun: 20 });
    expect(JSON.stringify(shown)).not.toMatch(/sk-secret|pass|llm\.internal/);
    expect(aiSettingsOf({ ...config, AI_MODEL: undefined })).toBeNull();
    expect(aiSettingsOf({ ...config, AI_BASE_URL: undefined })).toBeNull();
  });

  it('shows whole percent, capped at 100', () => {
    expect([budgetPercent(0, 1_000), budgetPercent(999, 1_000), budgetPercent(1_000, 1_000), budgetPercent(5_000, 1_000)]).toEqual([
      0, 99, 100, 100,
    ]);
  });
});
