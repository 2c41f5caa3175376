import type { Firestore } from 'firebase-admin/firestore';
import { aiEnabled, type Config } from '../runtime/config';
import { addDays } from '../store/timestamps';
import { aiUsageRef, maxCallsPerRun } from '../verdicts/ai-usage';
import type { ModelStats } from '../verdicts/judge-postings';
import type { ScoreFallbackReason } from '../verdicts/score-once';

/**
 * The AI verdict stage as the ops page and `scout status` show it (docs/operations.md "AI
 * verdicts"): whether it is on, today's tokens against AI_DAILY_TOKEN_BUDGET, and what the recent
 * runs' model stages did, summed from the run records already read. Pure but for
 * readAiUsageToday, the one extra read.
 */

/**
 * What the page may show of the stage's configuration: the model's name and the two limits. Never
 * the key, nor the server's address (a URL can carry credentials, and an internal host is no
 * business of a screenshot).
 */
export type AiSettings = { model: string; dailyTokenBudget: number; maxCallsPerRun: number };

export function aiSettingsOf(config: Pick<Config, 'AI_BASE_URL' | 'AI_MODEL' | 'AI_DAILY_TOKEN_BUDGET' | 'tuning'>): AiSettings | null {
  if (!aiEnabled(config)) return null;
  return { model: config.AI_MODEL!, dailyTokenBudget: config.AI_DAILY_TOKEN_BUDGET, maxCallsPerRun: maxCallsPerRun(config) };
}

/** aiUsage/{day} as recorded by every run (lib/verdicts/ai-usage.ts); zeros before the day's first record. */
export type AiUsageToday = { day: string; tokens: number; calls: number };

/** One document read by id (missing or not, one read). */
export async function readAiUsageToday(db: Firestore, day: string): Promise<AiUsageToday> {
  const snap = await aiUsageRef(db, day).get();
  return { day, tokens: countOf(snap.get('tokens')), calls: countOf(snap.get('calls')) };
}

const countOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/**
 * runs/{runId}.stats.model as stored: null for a run with the stage off (or recorded before it
 * existed). Anything that is not a count reads as 0, so an odd record can skew a sum, never break
 * the page.
 */
export function readRunModel(value: unknown): ModelStats | null {
  if (typeof value !== 'object' || value === null) return null;
  const m = value as Record<string, unknown>;
  const fallbacks: ModelStats['fallbacks'] = {};
  if (typeof m.fallbacks === 'object' && m.fallbacks !== null)
    for (const [reason, n] of Object.entries(m.fallbacks)) {
      if (countOf(n) > 0) fallbacks[reason as ScoreFallbackReason] = countOf(n);
    }
  return { calls: countOf(m.calls), tokens: countOf(m.tokens), judged: countOf(m.judged), notAFit: countOf(m.notAFit), fallbacks };
}

/** Pairs decided by keywords alone in one run, all reasons together. */
export const fallbackCount = (model: ModelStats | null) => Object.values(model?.fallbacks ?? {}).reduce((sum, n) => sum + (n ?? 0), 0);

/** Fallbacks by reason, largest first (ties by name), for one line of text. */
export const fallbacksByReason = (fallbacks: ModelStats['fallbacks']): [string, number][] =>
  Object.entries(fallbacks)
    .filter((entry): entry is [string, number] => (entry[1] ?? 0) > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

/** The recent runs' model stages summed. */
export type RecentModelStats = ModelStats & {
  /** Runs read (the window the sums are over). */
  runs: number;
  /** Of those, runs that recorded a model stage (it was on). */
  runsWithModel: number;
  /** Runs where keywords decided some pairs for the budget (`fallbacks.budget` > 0): the per-run cap or the daily tokens. */
  runsOverBudget: number;
  /**
   * Of those, runs that made `maxCallsPerRun` calls: the per-run cap stopped them (a run stopped by
   * the daily tokens alone made fewer). Null when the cap is not known (the CLI reads no app config).
   */
  runsAtCallCap: number | null;
};

export function sumRunModels(models: (ModelStats | null)[], maxCallsPerRun: number | null = null): RecentModelStats {
  const sum: RecentModelStats = {
    runs: models.length,
    runsWithModel: 0,
    calls: 0,
    tokens: 0,
    judged: 0,
    notAFit: 0,
    fallbacks: {},
    runsOverBudget: 0,
    runsAtCallCap: maxCallsPerRun === null ? null : 0,
  };
  for (const m of models) {
    if (!m) continue;
    sum.runsWithModel += 1;
    sum.calls += m.calls;
    sum.tokens += m.tokens;
    sum.judged += m.judged;
    sum.notAFit += m.notAFit;
    for (const [reason, n] of fallbacksByReason(m.fallbacks))
      sum.fallbacks[reason as ScoreFallbackReason] = (sum.fallbacks[reason as ScoreFallbackReason] ?? 0) + n;
    if ((m.fallbacks.budget ?? 0) > 0) {
      sum.runsOverBudget += 1;
      if (maxCallsPerRun !== null && m.calls >= maxCallsPerRun) sum.runsAtCallCap = (sum.runsAtCallCap ?? 0) + 1;
    }
  }
  return sum;
}

/** The ops page's "AI verdicts" panel. */
export type AiVerdictsState =
  | { state: 'off' }
  | {
      state: 'on';
      model: string;
      today: AiUsageToday;
      dailyTokenBudget: number;
      /** Today's tokens reached AI_DAILY_TOKEN_BUDGET: no model call until the next UTC day. */
      budgetSpent: boolean;
      /** 00:00 UTC of the next day, when aiUsage starts a new document and the budget is whole again. */
      budgetResetsAt: Date;
      maxCallsPerRun: number;
      recent: RecentModelStats;
    };

/**
 * `spent`: the tokens recorded (runs record once, at their end, and a lapsed reservation counts
 * whole) reached the budget, so every run's reservation is refused until the next UTC day. Runs in
 * flight can hold the rest of the budget a little before the page says so.
 */
export function aiVerdictsState(input: {
  settings: AiSettings | null;
  today: AiUsageToday | null;
  runModels: (ModelStats | null)[];
}): AiVerdictsState {
  const { settings } = input;
  if (!settings || !input.today) return { state: 'off' };
  return {
    state: 'on',
    model: settings.model,
    today: input.today,
    dailyTokenBudget: settings.dailyTokenBudget,
    budgetSpent: input.today.tokens >= settings.dailyTokenBudget,
    budgetResetsAt: addDays(new Date(`${input.today.day}T00:00:00.000Z`), 1),
    maxCallsPerRun: settings.maxCallsPerRun,
    recent: sumRunModels(input.runModels, settings.maxCallsPerRun),
  };
}

/** Share of the day's budget used, in whole percent, capped at 100 (the last calls in flight can overshoot it). */
export const budgetPercent = (tokens: number, budget: number) => Math.min(100, Math.floor((tokens / budget) * 100));
