import type { Firestore } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import type { Posting } from '../feeds/posting';
import type { ModelStats as RunModelStats } from '../ledger/runs';
import { readCounterExamples } from './counter-examples';
import type { Config } from '../runtime/config';
import type { Logger } from '../runtime/logger';
import type { IndexedSubscriber } from '../subscribers/match-index';
import { subscribersCollection } from '../subscribers/subscriber';
import { createTokenReservation, newRunModelUsage, TOKEN_RESERVATIONS } from './ai-usage';
import type { VerdictClient } from './ask-verdicts';
import { scoreOnce, type ScoreFallbackReason } from './score-once';

/**
 * The verdict stage as the cycle uses it (docs/verdicts.md "Deciding"): the keyword match is the
 * shortlist, and for each shortlisted posting the model's fit decides whether it is sent.
 *   a verdict  → sent when fit ≥ the subscriber's fitThreshold, else closed `skipped` (not_a_fit)
 *   a fallback → decided by keywords alone (it matched them, so it is sent), and the reason kept,
 *                so the email can say so in one line and the run can count it
 * Built once per run (its call cap and counters are the run's); absent while the stage is off,
 * and then nothing about a run changes.
 */
export type Judgement = {
  /** The model's fit, 0–100; null when keywords decided. */
  fit: number | null;
  /** The model's reason as plain text; null when keywords decided. */
  fitReason: string | null;
  /** Why the model did not decide this one (the stage is on): a fault, the budget, … */
  fallback: ScoreFallbackReason | null;
  /** Whether it goes out: fit at or above the threshold, or keywords decided. */
  fits: boolean;
};

/**
 * Who is judged: a stored subscriber, or their match index entry, which leaves out `about` (then
 * read from users/ once the subscriber has postings to judge).
 */
export type JudgedSubscriber = IndexedSubscriber & { about?: string };

export type Judge = {
  /** One subscriber's shortlisted postings → a judgement for each, by posting id. Never throws for a model fault. */
  judge(subscriber: JudgedSubscriber, postings: Posting[]): Promise<Map<string, Judgement>>;
  /** What the run's model stage did so far: for the run record and the log. */
  stats(): ModelStats;
  /**
   * Records the run's model usage in aiUsage/{day} and gives back the tokens it reserved and did not
   * use: once, when the run's judging is over (its calls have all returned). Never throws.
   */
  record(): Promise<void>;
};

export type ModelStats = RunModelStats<ScoreFallbackReason>;

/**
 * Model requests in flight. A request judges one posting (docs/verdicts.md), so a subscriber's
 * postings are asked side by side: 4 keeps a run's model time near what batches of 20 took at 2.
 */
export const AI_CONCURRENCY = 4;

export type JudgeDeps = {
  db: Firestore;
  client: VerdictClient;
  config: Pick<Config, 'tuning' | 'AI_DAILY_TOKEN_BUDGET' | 'RETENTION_DAYS' | 'RUN_BUDGET_MS'>;
  clock: () => Date;
  log: Logger;
  runId: string;
  /** Aborts model calls and waits when the run's budget is spent. */
  signal?: AbortSignal;
  /** Whether the run can still wait this long and make one more call (429 Retry-After). */
  canWait?: (ms: number) => boolean;
};

export function createJudge(deps: JudgeDeps): Judge {
  const usage = newRunModelUsage();
  const tokens = createTokenReservation({
    db: deps.db,
    runId: deps.runId,
    budget: deps.config.AI_DAILY_TOKEN_BUDGET,
    retentionDays: deps.config.RETENTION_DAYS,
    clock: deps.clock,
    // The run's calls end with its time budget (the signal), so a live run records before this lapses.
    leaseMs: deps.config.RUN_BUDGET_MS + TOKEN_RESERVATIONS.leaseMarginMs,
    onError: (error) => deps.log('verdicts.usage_record_failed', { runId: deps.runId, error: String(error) }),
  });
  // AI_CONCURRENCY bounds the run's requests in flight (inFlight, shared by every subscriber's
  // postings) and, separately, the subscribers being judged at once, so their reads stay bounded too.
  const concurrency = deps.config.tuning?.AI_CONCURRENCY ?? AI_CONCURRENCY;
  const inFlight = pLimit(concurrency);
  const limit = pLimit(concurrency);
  // The last judgement of each pair: a claim attempt re-planned after a lost race judges its pairs again (from matches/, at no cost).
  const decided = new Map<string, Judgement>();
  /** Judgements under way, so the run's usage is recorded only after the last of them. */
  const judging = new Set<Promise<unknown>>();

  async function judge(subscriber: JudgedSubscriber, postings: Posting[]): Promise<Map<string, Judgement>> {
    if (postings.length === 0) return new Map();
    const about = subscriber.about ?? (await readAbout(deps.db, subscriber.id));
    const scoring = limit(() =>
      scoreOnce(
        { ...deps, usage, tokens, inFlight },
        {
          runId: deps.runId,
          subscriber: {
            id: subscriber.id,
            keywords: subscriber.keywords,
            excludes: subscriber.excludes,
            minPay: subscriber.minPay,
            about,
            profileVersion: subscriber.profileVersion,
            // Their latest "not a fit" postings, as counter-examples: read only when a request is made.
            loadCounterExamples: () => readCounterExamples(deps.db, subscriber.id),
          },
          postings: postings.map(({ id, title, description, budget, source }) => ({ id, title, description, budget, source })),
        },
      ),
    );
    scoring.catch(() => undefined).finally(() => judging.delete(scoring));
    judging.add(scoring);
    const outcomes = await scoring;
    const judged = new Map<string, Judgement>();
    for (const posting of postings) {
      const outcome = outcomes.get(posting.id) ?? { kind: 'fallback' as const, reason: 'no-verdict' as const };
      const judgement: Judgement =
        outcome.kind === 'verdict'
          ? { fit: outcome.fit, fitReason: outcome.reason, fallback: null, fits: outcome.fit >= subscriber.fitThreshold }
          : { fit: null, fitReason: null, fallback: outcome.reason, fits: true };
      judged.set(posting.id, judgement);
      decided.set(`${subscriber.id}_${posting.id}`, judgement);
    }
    return judged;
  }

  function stats(): ModelStats {
    const out: ModelStats = { calls: usage.calls, tokens: usage.tokens, judged: 0, notAFit: 0, fallbacks: {} };
    for (const judgement of decided.values()) {
      if (judgement.fallback) out.fallbacks[judgement.fallback] = (out.fallbacks[judgement.fallback] ?? 0) + 1;
      else out.judged += 1;
      if (!judgement.fits) out.notAFit += 1;
    }
    return out;
  }

  async function record() {
    // A step that threw can leave other subscribers' judging running: their usage is recorded too,
    // or it would be spent against no budget. The run's signal bounds how long this waits.
    while (judging.size > 0) await Promise.allSettled([...judging]);
    await tokens.record();
    deps.log('verdicts.usage_recorded', { runId: deps.runId, tokens: usage.tokens, calls: usage.calls, writes: tokens.writes() });
  }

  return { judge, stats, record };
}

/** What a subscriber wrote about themselves, for a judge handed their index entry; '' once they are gone. */
async function readAbout(db: Firestore, uid: string): Promise<string> {
  return (await subscribersCollection(db).doc(uid).get()).data()?.about ?? '';
}
