import type { DocumentSnapshot, Firestore } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../store/collections';
import { guardedUpdate } from '../store/guarded-update';
import { addDays, utcDay } from '../store/timestamps';
import type { Config } from '../runtime/config';
import type { VerdictUsage } from './ask-verdicts';

/**
 * aiUsage/{YYYY-MM-DD}: the model tokens every run used on one UTC day, against
 * AI_DAILY_TOKEN_BUDGET, and the parts of that budget runs hold right now.
 *
 * One document a day is written by every run and every shard, so it must not take a write per
 * model call (Firestore sustains about one write a second on a document; at 100,000 subscribers a
 * write per batch of calls was 10–20 a second). Instead a run *reserves* tokens of the day's
 * budget before its first call, spends them in memory, and writes the document again only to
 * reserve more (each reservation twice the last) and once at its end to record what it used and
 * give back the rest. Every write is an update guarded by the version read (or the day's
 * create()), so two runs can never both take the same tokens: the sum of what runs hold and what
 * was recorded never passes the budget. Writes per run and day: at most
 * MAX_USAGE_WRITES_PER_RUN, whatever the number of calls.
 *
 * A run that dies keeps its reservation only until `until`: the next run to write the document
 * counts it as spent (in `tokens`, and in `lapsedTokens` to say so), since nobody knows what the
 * dead run used of it. So a dead run loses the day at most what it held unspent; and if a run that
 * was counted lapsed comes back after all, its record replaces the assumption with what it used.
 */
export type AiUsageDay = {
  day: string;
  /** Tokens recorded against the budget: reported (or estimated) by runs that recorded, plus lapsed reservations. */
  tokens: number;
  promptTokens: number;
  completionTokens: number;
  /** Model calls that answered with a usage, recorded. */
  calls: number;
  /** Of `tokens`, reservations of runs that never came back to record (each counted whole). */
  lapsedTokens: number;
  /** The reservations live runs hold, by runId: tokens not yet spent as of their last write, and until when. */
  held: Record<string, { tokens: number; until: Date }>;
  updatedAt: Date;
  expireAt: Date;
};

/**
 * Model requests one run may make, so postings it may judge (one per request, a 429's retry
 * counted too); past it, candidates are decided by keywords alone. 1,000 is what 50 batches of 20
 * allowed when a request judged a batch.
 */
export const AI_MAX_CALLS_PER_RUN = 1_000;

export const maxCallsPerRun = (config: Pick<Config, 'tuning'>): number => config.tuning?.AI_MAX_CALLS_PER_RUN ?? AI_MAX_CALLS_PER_RUN;

/** Per run: calls made so far, against AI_MAX_CALLS_PER_RUN. Shared by every scoreOnce of the run. */
export type RunModelUsage = { calls: number; tokens: number };

export const newRunModelUsage = (): RunModelUsage => ({ calls: 0, tokens: 0 });

export const aiUsageRef = (db: Firestore, day: string) => db.collection(COLLECTIONS.aiUsage).doc(day);

export const TOKEN_RESERVATIONS = {
  /**
   * A run's first reservation of a day is this share of the day's budget, and each further one
   * twice the one before: small enough that 16 shards starting together leave most of the budget
   * free, and doubling so a run that needs the whole budget gets there in a few writes.
   */
  firstShare: 1 / 32,
  /**
   * Reservations one run makes on one day, at most: past them keywords decide for the rest of the
   * run. 1/32 doubling 6 times covers 63/32 of the budget, so a run that has the budget to itself
   * never reaches it.
   */
  perRunAndDay: 6,
  /**
   * A reservation is held for the run's time budget and this much more, from its write: past it
   * the run is taken for dead. The run's model calls are cut at its budget (judge-postings), so a
   * live run records before its reservation lapses.
   */
  leaseMarginMs: 60_000,
} as const;

/** Writes one run makes to one day's document: its reservations, and its record at the end. */
export const MAX_USAGE_WRITES_PER_RUN = TOKEN_RESERVATIONS.perRunAndDay + 1;

/**
 * The run's share of the day's token budget. Shared by every scoreOnce of the run (like
 * RunModelUsage), so a run's calls draw on one reservation.
 */
export type TokenReservation = {
  /**
   * Whether the run may start another model call: it holds tokens not yet spent, or it reserved
   * more just now (one write). False once the day's budget is all recorded or held by others, or
   * the run made its last reservation of the day.
   */
  canSpend(): Promise<boolean>;
  /** Counts one answered call's usage against what the run holds, in memory. */
  spend(usage: VerdictUsage): void;
  /**
   * Records what the run used since its last write and gives back what it holds unspent: once, at
   * the run's end (again only writes if more was spent since). Never throws: a failed record
   * leaves the reservation to lapse, counted whole.
   */
  record(): Promise<void>;
  /** Writes that landed on aiUsage documents, for the run's log and the tests. */
  writes(): number;
};

type Spent = { tokens: number; promptTokens: number; completionTokens: number; calls: number };
const nothingSpent = (): Spent => ({ tokens: 0, promptTokens: 0, completionTokens: 0, calls: 0 });

/** One run's standing on one day. */
type DayShare = {
  day: string;
  /** Tokens the run's entry in `held` says it holds (as of its last write); 0 when it has none. */
  held: number;
  /** Spent since the last write: not yet in the document. */
  pending: Spent;
  /** Reservations granted so far this day. */
  reservations: number;
  /** Refused once (the budget is taken) or out of reservations: asks the store nothing more today. */
  closed: boolean;
};

export type TokenReservationDeps = {
  db: Firestore;
  runId: string;
  budget: number;
  retentionDays: number;
  clock: () => Date;
  /** How long a reservation is held from its write: the run's time budget and TOKEN_RESERVATIONS.leaseMarginMs. */
  leaseMs: number;
  onError?: (error: unknown) => void;
};

export function createTokenReservation(deps: TokenReservationDeps): TokenReservation {
  let share: DayShare | null = null;
  let writes = 0;
  // Writes of one run go one at a time: concurrent scoreOnce calls wait for the reservation in
  // flight instead of each making their own.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(step: () => Promise<T>): Promise<T> => {
    const next = queue.then(step, step);
    queue = next.catch(() => undefined);
    return next;
  };

  const unspent = (s: DayShare) => s.held - s.pending.tokens;

  /**
   * One guarded write of the run's standing: records `pending` and sets the run's entry to what it
   * is granted of `want` (0: the entry goes). Answers the grant, or null when nothing was written.
   */
  async function write(s: DayShare, want: number): Promise<number | null> {
    let taken: Spent = nothingSpent();
    const granted = await guardedUpdate<number | null>(
      aiUsageRef(deps.db, s.day),
      (snap: DocumentSnapshot) => {
        const now = deps.clock();
        taken = { ...s.pending };
        const plan = planWrite({ snap, runId: deps.runId, held: s.held, pending: taken, want, budget: deps.budget, now });
        if (plan === null) return { done: null };
        const fields = { ...plan.fields, day: s.day, updatedAt: now, expireAt: addDays(now, deps.retentionDays) };
        if (plan.granted > 0) fields.held[deps.runId] = { tokens: plan.granted, until: new Date(now.getTime() + deps.leaseMs) };
        return snap.exists ? { update: fields, result: plan.granted } : { create: fields, result: plan.granted };
      },
      // Every lost race is another run's write, and each run writes a few times a day: room for them all.
      { maxTries: 64, action: 'reserving model tokens' },
    );
    if (granted === null) return null;
    writes += 1;
    s.held = granted;
    for (const key of Object.keys(taken) as (keyof Spent)[]) s.pending[key] -= taken[key];
    return granted;
  }

  async function closeDay(s: DayShare) {
    if (s.held === 0 && s.pending.calls === 0 && s.pending.tokens === 0) return;
    await write(s, 0);
  }

  return {
    canSpend: () =>
      serially(async () => {
        const day = utcDay(deps.clock());
        if (share && share.day !== day) {
          // The run crossed midnight: what it used is yesterday's, and today starts a new share.
          await closeDay(share).catch((error: unknown) => deps.onError?.(error));
          share = null;
        }
        share ??= { day, held: 0, pending: nothingSpent(), reservations: 0, closed: false };
        if (unspent(share) > 0) return true;
        if (share.closed) return false;
        const want = Math.max(1, Math.ceil(deps.budget * TOKEN_RESERVATIONS.firstShare * 2 ** share.reservations));
        const granted = await write(share, want);
        if (!granted) {
          share.closed = true;
          return false;
        }
        share.reservations += 1;
        if (share.reservations >= TOKEN_RESERVATIONS.perRunAndDay) share.closed = true;
        return unspent(share) > 0;
      }),
    spend(usage) {
      const s = (share ??= { day: utcDay(deps.clock()), held: 0, pending: nothingSpent(), reservations: 0, closed: false });
      s.pending.tokens += usage.promptTokens + usage.completionTokens;
      s.pending.promptTokens += usage.promptTokens;
      s.pending.completionTokens += usage.completionTokens;
      s.pending.calls += 1;
    },
    record: () =>
      serially(async () => {
        if (!share) return;
        try {
          await closeDay(share);
        } catch (error) {
          deps.onError?.(error);
        }
      }),
    writes: () => writes,
  };
}

type Held = AiUsageDay['held'];

/**
 * What one run's write does to the day's document, decided on the version read (pure).
 * - Entries past their `until` (their run died) are counted as spent, whole, and dropped.
 * - The run's own spending since its last write is added. If its entry is gone (it was counted
 *   lapsed while the run went on), what it held was already counted: what it spent replaces that.
 * - It is granted `want`, or what is left of the budget after everything recorded and held by the
 *   others, if less. Null when there is nothing to write (nothing to record, nothing granted).
 */
export function planWrite(input: {
  snap: DocumentSnapshot;
  runId: string;
  /** What the run believes its entry holds. */
  held: number;
  pending: Spent;
  want: number;
  budget: number;
  now: Date;
}): { granted: number; fields: Omit<AiUsageDay, 'day' | 'updatedAt' | 'expireAt'> } | null {
  const { snap, runId, pending, now } = input;
  const num = (field: string) => {
    const value: unknown = snap.get(field);
    return typeof value === 'number' && Number.isFinite(value) ? value : 0;
  };
  let tokens = num('tokens');
  let lapsedTokens = num('lapsedTokens');
  const stored = (snap.get('held') ?? {}) as Record<string, { tokens?: unknown; until?: { toDate?: () => Date } | Date }>;
  const held: Held = {};
  let mine: number | null = null;
  for (const [id, entry] of Object.entries(stored)) {
    const amount = typeof entry?.tokens === 'number' && entry.tokens > 0 ? entry.tokens : 0;
    const untilRaw = entry?.until;
    const until = untilRaw instanceof Date ? untilRaw : typeof untilRaw?.toDate === 'function' ? untilRaw.toDate() : new Date(0);
    if (id === runId) mine = amount;
    else if (until.getTime() <= now.getTime()) {
      tokens += amount;
      lapsedTokens += amount;
    } else held[id] = { tokens: amount, until };
  }
  tokens += pending.tokens;
  if (mine === null && input.held > 0) {
    // Counted lapsed by another run while we went on: our record replaces that assumption.
    tokens -= input.held;
    lapsedTokens -= input.held;
  }
  const othersHold = Object.values(held).reduce((sum, h) => sum + h.tokens, 0);
  const granted = Math.max(0, Math.min(input.want, input.budget - tokens - othersHold));
  // A refused reservation writes nothing: the run's entry (if any) stands until its record at the
  // end, so a run makes at most its reservations and that one record.
  if (input.want > 0 && granted === 0) return null;
  if (input.want === 0 && pending.calls === 0 && pending.tokens === 0 && mine === null && input.held === 0) return null;
  return {
    granted,
    fields: {
      tokens,
      promptTokens: num('promptTokens') + pending.promptTokens,
      completionTokens: num('completionTokens') + pending.completionTokens,
      calls: num('calls') + pending.calls,
      lapsedTokens,
      held,
    },
  };
}
