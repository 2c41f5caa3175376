import { setTimeout as sleep } from 'node:timers/promises';
import type { MinPay } from '../pay/minimum-pay';
import type { DocumentSnapshot, Firestore, Timestamp } from 'firebase-admin/firestore';
import type { Config } from '../runtime/config';
import type { Logger } from '../runtime/logger';
import { isLostRace } from '../store/firestore-errors';
import { GUARDED_UPDATE_MAX_TRIES } from '../store/guarded-update';
import { addDays } from '../store/timestamps';
import { maxCallsPerRun, type RunModelUsage, type TokenReservation } from './ai-usage';
import pLimit, { type LimitFunction } from 'p-limit';
import { askVerdicts, type FallbackReason, type VerdictClient, type VerdictResult } from './ask-verdicts';
import { matchRef, readMatchVerdicts, type MatchVerdict } from './match-verdict';
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
 *   an update guarded by the version read (lastUpdateTime, as guardedUpdate does), so exactly one
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
 * reserved per posting before its group is claimed) and AI_DAILY_TOKEN_BUDGET (the run's
 * reservation of the day's tokens, ai-usage.ts: checked in memory before each group and each
 * retry, reserving more when it is spent). A run can overshoot its reservation by the groups it
 * has in flight when the reservation runs out, never more.
 *
 * Every fallback means "no verdict": the caller decides that posting by its keyword score.
 */

export type ScoreSubscriber = {
  /** The uid: names the stored verdict, never sent to the model. */
  id: string;
  keywords: string[];
  excludes: string[];
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
 * one round trip for the claims and one for the answers per group, as a batch request had, while
 * each posting is still judged alone.
 */
export const CLAIM_GROUP = 20;

/** A 429's Retry-After is honoured at most this often per request, and only when at most this long. */
export const RATE_LIMIT_RETRIES = 2;
export const MAX_RETRY_AFTER_MS = 30_000;

export type ScoreOnceInput = { runId: string; subscriber: ScoreSubscriber; postings: VerdictPosting[] };

/** A claim outlives the calls it covers by this much (a 429's wait among them) before another run may take it over. */
export const CLAIM_LEASE_MARGIN_MS = 60_000;

/**
 * How long a claim covers: its group's requests wait in the run's FIFO of AI_CONCURRENCY slots
 * behind at most the other judged subscribers' groups, which together hold at most
 * AI_CONCURRENCY × CLAIM_GROUP requests: CLAIM_GROUP request times, whatever AI_CONCURRENCY is.
 * A live run's claim must not lapse while its request is queued (another run would ask too).
 */
export const claimLeaseMs = (timeoutMs: number) => CLAIM_GROUP * timeoutMs + CLAIM_LEASE_MARGIN_MS;

type Decision = { use: MatchVerdict } | 'claim' | 'wait' | 'superseded';

function decide(snap: DocumentSnapshot<MatchVerdict>, subscriber: ScoreSubscriber, now: Date): Decision {
  if (!snap.exists) return 'claim';
  const m = snap.data()!;
  if (m.profileVersion > subscriber.profileVersion || m.promptVersion > PROMPT_VERSION) return 'superseded';
  if (m.profileVersion < subscriber.profileVersion || m.promptVersion < PROMPT_VERSION) return 'claim';
  if (m.state === 'scored' && m.fit !== null && m.reason !== null) return { use: m };
  if (m.state === 'scoring' && m.leaseUntil && m.leaseUntil.getTime() > now.getTime()) return 'wait';
  return 'claim';
}

type Claimed = { posting: VerdictPosting; version: Timestamp };

export async function scoreOnce(deps: ScoreOnceDeps, input: ScoreOnceInput): Promise<Map<string, ScoreOutcome>> {
  const { db, client, config, usage } = deps;
  const { subscriber, runId } = input;
  const uid = subscriber.id;
  const outcomes = new Map<string, ScoreOutcome>();
  const postings = [...new Map(input.postings.map((p) => [p.id, p])).values()];
  if (postings.length === 0) return outcomes;

  const counts = { calls: 0, retries: 0, asked: 0, scored: 0, reused: 0, fallbacks: {} as Record<string, number> };
  const useVerdict = (jobId: string, m: MatchVerdict) => {
    outcomes.set(jobId, { kind: 'verdict', fit: m.fit!, reason: m.reason!, model: m.model, stored: true });
    counts.reused += 1;
  };
  const fallBack = (jobId: string, reason: ScoreFallbackReason) => {
    outcomes.set(jobId, { kind: 'fallback', reason });
    counts.fallbacks[reason] = (counts.fallbacks[reason] ?? 0) + 1;
  };

  // One getAll for every pair: most are answered here on any run after the first.
  const snaps = await readMatchVerdicts(
    db,
    uid,
    postings.map((p) => p.id),
  );
  const toAsk: { posting: VerdictPosting; snap: DocumentSnapshot<MatchVerdict> }[] = [];
  const waiting = new Set<string>();
  for (const posting of postings) {
    const snap = snaps.get(posting.id)!;
    const decision = decide(snap, subscriber, deps.clock());
    if (decision === 'claim') toAsk.push({ posting, snap });
    else if (decision === 'wait') waiting.add(posting.id);
    else if (decision === 'superseded') fallBack(posting.id, 'superseded');
    else useVerdict(posting.id, decision.use);
  }

  const claimFields = (jobId: string, now: Date) => ({
    uid,
    jobId,
    state: 'scoring' as const,
    fit: null,
    reason: null,
    model: client.model,
    promptVersion: PROMPT_VERSION,
    profileVersion: subscriber.profileVersion,
    leaseUntil: new Date(now.getTime() + claimLeaseMs(client.timeoutMs)),
    runId,
    createdAt: now,
    scoredAt: null,
    expireAt: addDays(now, config.RETENTION_DAYS),
  });

  /**
   * Takes the pair's claim: create() when it did not exist, else an update guarded by the version
   * read. A lost race reads again and decides again (another run's claim → wait; its verdict → use).
   */
  async function claim(posting: VerdictPosting, first: DocumentSnapshot<MatchVerdict>): Promise<Claimed | null> {
    const ref = matchRef(db, uid, posting.id);
    const raw = ref.withConverter(null);
    let snap = first;
    for (let attempt = 1; attempt <= GUARDED_UPDATE_MAX_TRIES; attempt++) {
      if (attempt > 1) snap = await ref.get();
      const decision = decide(snap, subscriber, deps.clock());
      if (decision !== 'claim') {
        if (decision === 'wait') waiting.add(posting.id);
        else if (decision === 'superseded') fallBack(posting.id, 'superseded');
        else useVerdict(posting.id, decision.use);
        return null;
      }
      const fields = claimFields(posting.id, deps.clock());
      try {
        const written = snap.exists ? await raw.update(fields, { lastUpdateTime: snap.updateTime! }) : await raw.create(fields);
        return { posting, version: written.writeTime };
      } catch (error) {
        if (!isLostRace(error)) throw error;
      }
    }
    // The pair kept changing under us: someone else is on it.
    waiting.add(posting.id);
    return null;
  }

  /** Gives a claim up: deleted only if it is still the version we wrote, so nothing of ours is left. */
  async function release(claimed: Claimed) {
    try {
      await matchRef(db, uid, claimed.posting.id).withConverter(null).delete({ lastUpdateTime: claimed.version });
    } catch (error) {
      if (!isLostRace(error)) throw error;
    }
  }

  let counterExamples = subscriber.counterExamples;
  /**
   * Every pair of a group claimed in one commit: in the common case (none claimed elsewhere since
   * the read) that is one round trip instead of one per pair. The commit is all or nothing, so if
   * any pair moved since it was read, nothing is written and each pair is claimed on its own.
   */
  async function claimAll(batch: { posting: VerdictPosting; snap: DocumentSnapshot<MatchVerdict> }[]): Promise<Claimed[]> {
    const now = deps.clock();
    if (batch.length > 1 && batch.every((item) => decide(item.snap, subscriber, now) === 'claim')) {
      const write = db.batch();
      for (const { posting, snap } of batch) {
        const raw = matchRef(db, uid, posting.id).withConverter(null);
        const fields = claimFields(posting.id, now);
        if (snap.exists) write.update(raw, fields, { lastUpdateTime: snap.updateTime! });
        else write.create(raw, fields);
      }
      try {
        const results = await write.commit();
        return batch.map((item, i) => ({ posting: item.posting, version: results[i].writeTime }));
      } catch (error) {
        if (!isLostRace(error)) throw error;
      }
    }
    return (await Promise.all(batch.map((item) => claim(item.posting, item.snap)))).filter((c): c is Claimed => c !== null);
  }

  /**
   * The answers written over their claims in one commit, each guarded by its claim's version. If
   * any claim was taken over (its lease ran out), nothing is written and each is written on its
   * own, so the others still land.
   */
  async function storeAll(answers: { claimed: Claimed; fields: Record<string, unknown> }[]): Promise<void> {
    const guarded = (a: (typeof answers)[number]) =>
      [matchRef(db, uid, a.claimed.posting.id).withConverter(null), a.fields, a.claimed.version] as const;
    if (answers.length > 1) {
      const write = db.batch();
      for (const a of answers) {
        const [ref, fields, version] = guarded(a);
        write.update(ref, fields, { lastUpdateTime: version });
      }
      try {
        await write.commit();
        return;
      } catch (error) {
        if (!isLostRace(error)) throw error;
      }
    }
    await Promise.all(
      answers.map(async (a) => {
        const [ref, fields, version] = guarded(a);
        try {
          await ref.update(fields, { lastUpdateTime: version });
        } catch (error) {
          // Our lease ran out and another run took the pair over: its verdict stands, ours is not written.
          if (!isLostRace(error)) throw error;
        }
      }),
    );
  }

  const about = subscriber.about ?? '';
  const wire = { keywords: subscriber.keywords, excludes: subscriber.excludes, minPay: subscriber.minPay, about };
  const inFlight = deps.inFlight ?? pLimit(1);

  /**
   * One posting's request, and its 429 retries while the run can wait. Never throws; the usage of
   * every answer that reported some is spent from the run's reservation (recorded at its end).
   */
  async function askOne(claimed: Claimed): Promise<VerdictResult> {
    const ask = async () => {
      const answer = await inFlight(() =>
        askVerdicts(client, { subscriber: wire, posting: claimed.posting, counterExamples }, { signal: deps.signal }),
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
        await sleep(result.kind === 'fallback' ? (result.retryAfterMs ?? 0) : 0, undefined, { signal: deps.signal });
      } catch {
        usage.calls -= 1;
        break;
      }
      counts.calls += 1;
      counts.retries += 1;
      result = await ask();
    }
    return result;
  }

  for (let start = 0; start < toAsk.length;) {
    // The calls are reserved before any await, so concurrent scoreOnce calls of one run share the cap exactly.
    const room = Math.min(CLAIM_GROUP, maxCallsPerRun(config) - usage.calls);
    if (room <= 0) {
      for (const item of toAsk.slice(start)) fallBack(item.posting.id, 'budget');
      break;
    }
    const group = toAsk.slice(start, start + room);
    start += group.length;
    usage.calls += group.length;
    if (!(await deps.tokens.canSpend())) {
      usage.calls -= group.length;
      for (const item of toAsk.slice(start - group.length)) fallBack(item.posting.id, 'budget');
      break;
    }
    const claimed = await claimAll(group);
    usage.calls -= group.length - claimed.length;
    if (claimed.length === 0) continue;
    counts.calls += claimed.length;
    counts.asked += claimed.length;
    counterExamples ??= subscriber.loadCounterExamples ? await subscriber.loadCounterExamples() : undefined;
    const results = await Promise.all(claimed.map((c) => askOne(c)));

    const now = deps.clock();
    const answered: { claimed: Claimed; verdict: Verdict }[] = [];
    const unanswered: Claimed[] = [];
    claimed.forEach((c, i) => {
      const result = results[i];
      const verdict = result.kind === 'ok' ? result.verdicts.get(c.posting.id) : undefined;
      if (verdict) answered.push({ claimed: c, verdict });
      else {
        unanswered.push(c);
        fallBack(c.posting.id, result.kind === 'fallback' ? result.reason : 'no-verdict');
      }
    });
    await Promise.all(unanswered.map(release));
    await storeAll(
      answered.map(({ claimed: c, verdict }) => {
        const fields = {
          state: 'scored',
          fit: verdict.fit,
          reason: verdict.reason,
          leaseUntil: null,
          scoredAt: now,
          expireAt: addDays(now, config.RETENTION_DAYS),
        };
        return { claimed: c, fields };
      }),
    );
    for (const { claimed: c, verdict } of answered) {
      // Paid for either way: this run uses the answer it got, stored or not.
      counts.scored += 1;
      outcomes.set(c.posting.id, { kind: 'verdict', fit: verdict.fit, reason: verdict.reason, model: client.model, stored: false });
    }
  }

  if (waiting.size > 0) await awaitOthers(deps, subscriber, waiting, useVerdict, fallBack);

  deps.log('verdicts.scored', {
    runId,
    postings: postings.length,
    calls: counts.calls,
    retries: counts.retries,
    asked: counts.asked,
    scored: counts.scored,
    reused: counts.reused,
    fallbacks: counts.fallbacks,
  });
  return outcomes;
}

function isRetryable(result: VerdictResult, deps: ScoreOnceDeps): boolean {
  if (result.kind !== 'fallback' || result.reason !== 'rate-limited' || result.retryAfterMs === undefined) return false;
  if (result.retryAfterMs > MAX_RETRY_AFTER_MS || deps.signal?.aborted) return false;
  return deps.canWait?.(result.retryAfterMs) ?? false;
}

/**
 * The pairs another run is scoring: read again (one getAll a round) until each is answered, its
 * claim is given up (a fault or the budget there: keywords decide here, and a later run asks), or
 * the wait ends. Never asks the model itself: that would be the second request.
 */
async function awaitOthers(
  deps: ScoreOnceDeps,
  subscriber: ScoreSubscriber,
  waiting: Set<string>,
  useVerdict: (jobId: string, m: MatchVerdict) => void,
  fallBack: (jobId: string, reason: ScoreFallbackReason) => void,
) {
  const waitMs = deps.waitMs ?? deps.client.timeoutMs + 5_000;
  const pollMs = deps.pollMs ?? 100;
  const until = Date.now() + waitMs;
  while (waiting.size > 0 && Date.now() < until && !deps.signal?.aborted) {
    try {
      await sleep(pollMs, undefined, { signal: deps.signal });
    } catch {
      break;
    }
    const snaps = await readMatchVerdicts(deps.db, subscriber.id, [...waiting]);
    for (const [jobId, snap] of snaps) {
      const decision = decide(snap, subscriber, deps.clock());
      if (decision === 'wait') continue;
      waiting.delete(jobId);
      if (decision === 'claim') fallBack(jobId, 'in-flight');
      else if (decision === 'superseded') fallBack(jobId, 'superseded');
      else useVerdict(jobId, decision.use);
    }
  }
  for (const jobId of waiting) fallBack(jobId, 'in-flight');
}
