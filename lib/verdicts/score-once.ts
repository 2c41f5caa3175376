import { setTimeout as sleep } from 'node:timers/promises';
import type { MinPay } from '../pay/minimum-pay';
import type { DocumentSnapshot, Firestore } from 'firebase-admin/firestore';
import type { Config } from '../runtime/config';
import type { Logger } from '../runtime/logger';
import type { LeaseClock } from '../store/lease';
import { addDays } from '../store/timestamps';
import { maxCallsPerRun, type RunModelUsage, type TokenReservation } from './ai-usage';
import pLimit, { type LimitFunction } from 'p-limit';
import { askVerdicts, type FallbackReason, type VerdictClient, type VerdictResult } from './ask-verdicts';
import { readMatchVerdicts, type MatchVerdict } from './match-verdict';
import {
  awaitOtherClaims,
  claimPairs,
  decideClaim,
  releaseClaim,
  storeAnswers,
  type ClaimContext,
  type ClaimDecision,
  type Claimed,
} from './verdict-claim';
import { PROMPT_VERSION, type Verdict, type VerdictCounterExample, type VerdictPosting } from './wire';

/**
 * Scored once: each (subscriber, posting) pair costs at most one model request, across runs,
 * retries and concurrent runs (docs/design.md §2.1, §2.2; docs/verdicts.md).
 *
 * The check is the write, and it comes BEFORE the model is asked: the run that create()s
 * matches/{uid}_{jobId} in state `scoring` owns the call for that pair; every other run finds the
 * document and waits for its answer instead of asking. Storing the answer with create() after the
 * call would keep only one verdict, but every concurrent run would already have paid for its own.
 *
 * - A `scored` verdict for the subscriber's profileVersion and this PROMPT_VERSION is used as is.
 * - A verdict made under an older profileVersion or PROMPT_VERSION is stale: it is claimed again by
 *   an update fenced by the version read (the store's lease, verdict-claim.ts), so exactly one
 *   run re-scores it and the new verdict overwrites the old. One made under a newer version than
 *   the caller's (a run holding an older read of the subscriber) is left alone: `superseded`.
 * - A `scoring` claim past its lease (its run died) is taken over the same way; its old holder can
 *   no longer write it, since its writes are guarded by the claim's version.
 * - A fault, the budget or an answer without that posting deletes the claim (guarded): nothing but
 *   a real answer is ever stored, and the next run tries again.
 *
 * One posting per request (wire.ts): no posting's text is in the request that judges another.
 *
 * Hard limits: AI_MAX_CALLS_PER_RUN (the run's counter, shared by every scoreOnce of the run, a call
 * reserved per posting before its batch is claimed) and AI_DAILY_TOKEN_BUDGET (the run's
 * reservation of the day's tokens, ai-usage.ts: checked in memory before each batch and each
 * retry, reserving more when it is spent). A run can overshoot its reservation by the batches it
 * has in flight when the reservation runs out, never more.
 *
 * Every fallback means "no verdict": the caller decides that posting by its keyword score.
 */

export type ScoreSubscriber = {
  /** The uid: names the stored verdict, never sent to the model. */
  id: string;
  keywords: string[];
  excludes: string[];
  /** Their query's text; absent when their keyword lists are their query. */
  query?: string;
  minPay: MinPay;
  about?: string;
  profileVersion: number;
  /**
   * Postings they marked "not a fit", newest first (lib/feedback readCounterExamples): sent as
   * counter-examples with every request. Not part of the profile version: a verdict already made
   * stands, new postings are judged with them.
   */
  counterExamples?: VerdictCounterExample[];
  /**
   * Or, read only if a call is made (most runs answer from stored verdicts and need none): loaded
   * once, right before the first request, instead of `counterExamples`.
   */
  loadCounterExamples?: () => Promise<VerdictCounterExample[]>;
};

export type ScoreFallbackReason =
  | FallbackReason
  /** AI_MAX_CALLS_PER_RUN or AI_DAILY_TOKEN_BUDGET reached before this posting's call. */
  | 'budget'
  /** The model answered, but not about this posting. */
  | 'no-verdict'
  /** Another run holds the claim and gave no answer in time (or gave up on it). */
  | 'in-flight'
  /** The stored verdict is for a newer profile or prompt version than this caller's. */
  | 'superseded';

export type ScoreOutcome =
  | {
      kind: 'verdict';
      fit: number;
      reason: string;
      model: string;
      /** made by an earlier or concurrent call, not this one */ stored: boolean;
    }
  | { kind: 'fallback'; reason: ScoreFallbackReason };

export type ScoreOnceDeps = {
  db: Firestore;
  client: VerdictClient;
  config: Pick<Config, 'tuning' | 'RETENTION_DAYS'>;
  clock: () => Date;
  log: Logger;
  /** The run's model usage: one object per run, shared by all its scoreOnce calls. */
  usage: RunModelUsage;
  /** The run's reservation of the day's token budget (AI_DAILY_TOKEN_BUDGET): one per run, like `usage`. */
  tokens: TokenReservation;
  /** The run's budget: aborts a call in flight (a `timeout`) and any wait for another run's answer. */
  signal?: AbortSignal;
  /** How long to wait for a pair another run is scoring; the client's timeout and a margin by default. */
  waitMs?: number;
  pollMs?: number;
  /** The wait between two reads of another run's claim, and before a 429's retry: real time unless a test passes its own. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Whether the run can still afford to wait this long and then make one more call (the run's
   * budget, model time included). A 429 with Retry-After is retried only when it says yes.
   */
  canWait?: (ms: number) => boolean;
  /**
   * The run's bound on model requests in flight (AI_CONCURRENCY), shared by every scoreOnce of the
   * run; without one, this call's requests go one at a time.
   */
  inFlight?: LimitFunction;
};

/**
 * Pairs claimed in one commit, then asked one posting per request side by side (within inFlight):
 * one round trip for the claims and one for the answers per claim batch, as a provider batch request had, while
 * each posting is still judged alone.
 */
export const PAIRS_PER_CLAIM_BATCH = 20;

/** A 429's Retry-After is honoured at most this often per request, and only when at most this long. */
export const RATE_LIMIT_RETRIES = 2;
export const MAX_RETRY_AFTER_MS = 30_000;

export type ScoreOnceInput = { runId: string; subscriber: ScoreSubscriber; postings: VerdictPosting[] };

/** A claim outlives the calls it covers by this much (a 429's wait among them) before another run may take it over. */
export const CLAIM_LEASE_MARGIN_MS = 60_000;

/**
 * How long a claim covers: its batch's requests wait in the run's FIFO of AI_CONCURRENCY slots
 * behind at most the other judged subscribers' batches, which together hold at most
 * AI_CONCURRENCY × PAIRS_PER_CLAIM_BATCH requests: PAIRS_PER_CLAIM_BATCH request times, whatever AI_CONCURRENCY is.
 * A live run's claim must not lapse while its request is queued (another run would ask too).
 */
export const claimLeaseMs = (timeoutMs: number) => PAIRS_PER_CLAIM_BATCH * timeoutMs + CLAIM_LEASE_MARGIN_MS;

/** What one scoreOnce call has found so far: each posting's outcome, its counts for the log, the pairs to wait for. */
type Tally = {
  outcomes: Map<string, ScoreOutcome>;
  counts: { calls: number; retries: number; asked: number; scored: number; reused: number; fallbacks: Record<string, number> };
  waiting: Set<string>;
  fallBack: (jobId: string, reason: ScoreFallbackReason) => void;
  /** A pair we did not claim: its stored verdict, a wait for another run's, or superseded. */
  notClaimed: (jobId: string, decision: Exclude<ClaimDecision, 'claim'>) => void;
};

function newTally(): Tally {
  const tally: Tally = {
    outcomes: new Map(),
    counts: { calls: 0, retries: 0, asked: 0, scored: 0, reused: 0, fallbacks: {} },
    waiting: new Set(),
    fallBack: (jobId, reason) => {
      tally.outcomes.set(jobId, { kind: 'fallback', reason });
      tally.counts.fallbacks[reason] = (tally.counts.fallbacks[reason] ?? 0) + 1;
    },
    notClaimed: (jobId, decision) => {
      if (decision === 'wait') tally.waiting.add(jobId);
      else if (decision === 'superseded') tally.fallBack(jobId, 'superseded');
      else {
        const m = decision.use;
        tally.outcomes.set(jobId, { kind: 'verdict', fit: m.fit!, reason: m.reason!, model: m.model, stored: true });
        tally.counts.reused += 1;
      }
    },
  };
  return tally;
}

/** One scoreOnce call at work: what every step of it shares. */
type Scoring = {
  deps: ScoreOnceDeps;
  tally: Tally;
  claims: ClaimContext;
  clock: LeaseClock;
  subscriber: ScoreSubscriber;
  wire: { keywords: string[]; excludes: string[]; minPay: MinPay; about: string };
  inFlight: LimitFunction;
  counterExamples: VerdictCounterExample[] | undefined;
};

/** The real wait, abortable by the run's budget; tests pass their own `sleep`. */
const realSleep = (ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal });

export async function scoreOnce(deps: ScoreOnceDeps, input: ScoreOnceInput): Promise<Map<string, ScoreOutcome>> {
  const { subscriber, runId } = input;
  const tally = newTally();
  const postings = [...new Map(input.postings.map((p) => [p.id, p])).values()];
  if (postings.length === 0) return tally.outcomes;
  const clock: LeaseClock = { now: deps.clock, sleep: deps.sleep ?? realSleep };
  const claims: ClaimContext = {
    db: deps.db,
    subscriber,
    clock: deps.clock,
    claimFields: (jobId, now) => claimFields(deps, input, jobId, now),
    notClaimed: tally.notClaimed,
  };

  // One getAll for every pair: most are answered here on any run after the first.
  const snaps = await readMatchVerdicts(
    deps.db,
    subscriber.id,
    postings.map((p) => p.id),
  );
  const toAsk: { posting: VerdictPosting; snap: DocumentSnapshot<MatchVerdict> }[] = [];
  for (const posting of postings) {
    const snap = snaps.get(posting.id)!;
    const decision = decideClaim(snap, subscriber, deps.clock());
    if (decision === 'claim') toAsk.push({ posting, snap });
    else tally.notClaimed(posting.id, decision);
  }

  const wire = {
    keywords: subscriber.keywords,
    excludes: subscriber.excludes,
    query: subscriber.query,
    minPay: subscriber.minPay,
    about: subscriber.about ?? '',
  };
  const scoring: Scoring = {
    deps,
    tally,
    claims,
    clock,
    subscriber,
    wire,
    inFlight: deps.inFlight ?? pLimit(1),
    counterExamples: subscriber.counterExamples,
  };
  await askInBatches(scoring, toAsk);

  if (tally.waiting.size > 0) {
    const stillHeld = await awaitOtherClaims(claims, tally.waiting, {
      clock,
      waitMs: deps.waitMs ?? deps.client.timeoutMs + 5_000,
      pollMs: deps.pollMs ?? 100,
      signal: deps.signal,
      // Given up there (a fault or the budget): keywords decide here, and a later run asks.
      settled: (jobId, decision) => (decision === 'claim' ? tally.fallBack(jobId, 'in-flight') : tally.notClaimed(jobId, decision)),
    });
    for (const jobId of stillHeld) tally.fallBack(jobId, 'in-flight');
  }

  deps.log('verdicts.scored', { runId, postings: postings.length, ...tally.counts });
  return tally.outcomes;
}

/** A claim's fields, taken at `now` by this run for this subscriber's profile. */
function claimFields(deps: ScoreOnceDeps, input: ScoreOnceInput, jobId: string, now: Date) {
  return {
    uid: input.subscriber.id,
    jobId,
    state: 'scoring' as const,
    fit: null,
    reason: null,
    model: deps.client.model,
    promptVersion: PROMPT_VERSION,
    profileVersion: input.subscriber.profileVersion,
    leaseUntil: new Date(now.getTime() + claimLeaseMs(deps.client.timeoutMs)),
    runId: input.runId,
    createdAt: now,
    scoredAt: null,
    expireAt: addDays(now, deps.config.RETENTION_DAYS),
  };
}

/** The pairs to ask, a batch of PAIRS_PER_CLAIM_BATCH at a time, each batch's calls reserved against the run's caps before it is claimed. */
async function askInBatches(scoring: Scoring, toAsk: { posting: VerdictPosting; snap: DocumentSnapshot<MatchVerdict> }[]) {
  const { deps, tally } = scoring;
  const { usage, config } = deps;
  for (let start = 0; start < toAsk.length;) {
    // The calls are reserved before any await, so concurrent scoreOnce calls of one run share the cap exactly.
    const room = Math.min(PAIRS_PER_CLAIM_BATCH, maxCallsPerRun(config) - usage.calls);
    if (room <= 0) {
      for (const item of toAsk.slice(start)) tally.fallBack(item.posting.id, 'budget');
      break;
    }
    const batch = toAsk.slice(start, start + room);
    start += batch.length;
    usage.calls += batch.length;
    if (!(await deps.tokens.canSpend())) {
      usage.calls -= batch.length;
      for (const item of toAsk.slice(start - batch.length)) tally.fallBack(item.posting.id, 'budget');
      break;
    }
    const claimed = await claimPairs(scoring.claims, batch);
    usage.calls -= batch.length - claimed.length;
    if (claimed.length === 0) continue;
    tally.counts.calls += claimed.length;
    tally.counts.asked += claimed.length;
    await askClaimed(scoring, claimed);
  }
}

/** One batch's claims asked side by side, then each answer stored over its claim, and each claim without one given up. */
async function askClaimed(scoring: Scoring, claimed: Claimed[]) {
  const { deps, tally, subscriber } = scoring;
  scoring.counterExamples ??= subscriber.loadCounterExamples ? await subscriber.loadCounterExamples() : undefined;
  const results = await Promise.all(claimed.map((c) => askOne(scoring, c)));

  const now = deps.clock();
  const answered: { claimed: Claimed; verdict: Verdict }[] = [];
  const unanswered: Claimed[] = [];
  claimed.forEach((c, i) => {
    const result = results[i];
    const verdict = result.kind === 'ok' ? result.verdicts.get(c.posting.id) : undefined;
    if (verdict) answered.push({ claimed: c, verdict });
    else {
      unanswered.push(c);
      tally.fallBack(c.posting.id, result.kind === 'fallback' ? result.reason : 'no-verdict');
    }
  });
  await Promise.all(unanswered.map((c) => releaseClaim(deps.db, subscriber.id, c)));
  await storeAnswers(
    deps.db,
    subscriber.id,
    answered.map(({ claimed: c, verdict }) => {
      const fields = {
        state: 'scored',
        fit: verdict.fit,
        reason: verdict.reason,
        leaseUntil: null,
        scoredAt: now,
        expireAt: addDays(now, deps.config.RETENTION_DAYS),
      };
      return { claimed: c, fields };
    }),
  );
  for (const { claimed: c, verdict } of answered) {
    // Paid for either way: this run uses the answer it got, stored or not.
    tally.counts.scored += 1;
    tally.outcomes.set(c.posting.id, {
      kind: 'verdict',
      fit: verdict.fit,
      reason: verdict.reason,
      model: deps.client.model,
      stored: false,
    });
  }
}

/**
 * One posting's request, and its 429 retries while the run can wait. Never throws; the usage of
 * every answer that reported some is spent from the run's reservation (recorded at its end).
 */
async function askOne(scoring: Scoring, claimed: Claimed): Promise<VerdictResult> {
  const { deps, tally } = scoring;
  const { usage, config } = deps;
  const ask = async () => {
    const answer = await scoring.inFlight(() =>
      askVerdicts(
        deps.client,
        { subscriber: scoring.wire, posting: claimed.posting, counterExamples: scoring.counterExamples },
        { signal: deps.signal },
      ),
    );
    if (answer.usage) {
      usage.tokens += answer.usage.promptTokens + answer.usage.completionTokens;
      deps.tokens.spend(answer.usage);
    }
    return answer;
  };
  let result = await ask();
  // A 429 that says when to come back is retried inside the run's budget, holding the same claim
  // (its lease outlasts MAX_RETRY_AFTER_MS); each retry is another call against the caps.
  for (let retry = 1; retry <= RATE_LIMIT_RETRIES && isRetryable(result, deps); retry++) {
    if (usage.calls >= maxCallsPerRun(config) || !(await deps.tokens.canSpend())) break;
    usage.calls += 1;
    try {
      await scoring.clock.sleep(result.kind === 'fallback' ? (result.retryAfterMs ?? 0) : 0, deps.signal);
    } catch {
      usage.calls -= 1;
      break;
    }
    tally.counts.calls += 1;
    tally.counts.retries += 1;
    result = await ask();
  }
  return result;
}

function isRetryable(result: VerdictResult, deps: ScoreOnceDeps): boolean {
  if (result.kind !== 'fallback' || result.reason !== 'rate-limited' || result.retryAfterMs === undefined) return false;
  if (result.retryAfterMs > MAX_RETRY_AFTER_MS || deps.signal?.aborted) return false;
  return deps.canWait?.(result.retryAfterMs) ?? false;
}
