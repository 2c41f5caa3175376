import { DAY_MS, utcDay } from '../store/timestamps';
import { FeedFetchError, FeedParseError } from './feed-errors';

/**
 * A source's health, as an operator acts on it:
 * - `ok`: its last fetch worked and it posts as often as it usually does;
 * - `failing`: its last fetch (and perhaps a few before) failed; every run still asks it;
 * - `disabled`: it answered 404/410 GONE_TO_DISABLE times in a row, or its answer failed to parse
 *   PARSE_FAILURES_TO_DISABLE times in a row: a board renamed or removed, or an API whose shape
 *   changed. It is asked once a day (the probe) instead of every run; a probe that works re-enables it;
 * - `silent`: it answers, but nothing new has come for longer than its usual gap allows.
 */
export type HealthState = 'ok' | 'failing' | 'disabled' | 'silent';

export const HEALTH_RULES = {
  /** 404/410 on this many fetches in a row disables a source: one 404 can be a deploy, three a day apart cannot. */
  goneToDisable: 3,
  /** Parse failures in a row that disable it: a provider mid-deploy answers garbage once, not five times. */
  parseFailuresToDisable: 5,
  /** A disabled source is asked again this long after its last probe. */
  probeEveryMs: DAY_MS,
  /** Gaps between new postings remembered, newest last. */
  gapHistory: 20,
  /** Fewer gaps than this say nothing about a source's rhythm: it is never silent before. */
  gapsBeforeSilence: 3,
  /** Silent after this many times its median gap without a new posting… */
  silentAfterMedianGaps: 3,
  /** …and never sooner than this: a board that posts hourly is still not silent after a quiet weekend. */
  silentFloorMs: 3 * DAY_MS,
  /** Days of new-posting counts kept for the postings-per-day rate. */
  rateWindowDays: 14,
} as const;

/** Why a fetch failed, as far as health is concerned. */
export type FailureKind = 'gone' | 'parse' | 'transient';

export type SourceOutcome =
  | { kind: 'ok'; created: number }
  | { kind: 'not-modified' }
  | { kind: 'error'; failure: FailureKind; status: number | null; message: string };

export type SourceHealth = {
  state: HealthState;
  /** The first success: what the rate is averaged since (up to the window). */
  trackedSince: Date | null;
  lastSuccessAt: Date | null;
  consecutiveFailures: number;
  /** 404/410 answers in a row, and parse failures in a row: any other outcome ends either run. */
  goneStreak: number;
  parseStreak: number;
  lastError: string | null;
  lastErrorAt: Date | null;
  lastErrorStatus: number | null;
  /** The first failure of the current run of failures; null while the last fetch worked. */
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** While disabled: the source is not asked before this. */
  nextProbeAt: Date | null;
  lastNewPostingAt: Date | null;
  /** Minutes between fetches that brought new postings, newest last, at most gapHistory. */
  newPostingGapsMinutes: number[];
  /** New postings by UTC day, the last rateWindowDays days only (the first read's backlog is not counted). */
  newPostingsByDay: Record<string, number>;
};

export const UNTRACKED: SourceHealth = {
  state: 'ok',
  trackedSince: null,
  lastSuccessAt: null,
  consecutiveFailures: 0,
  goneStreak: 0,
  parseStreak: 0,
  lastError: null,
  lastErrorAt: null,
  lastErrorStatus: null,
  failingSince: null,
  disabledAt: null,
  disabledReason: null,
  nextProbeAt: null,
  lastNewPostingAt: null,
  newPostingGapsMinutes: [],
  newPostingsByDay: {},
};

/** What a fetch's error means for health: 404/410 say the board is gone, a parse error that its shape changed, anything else may pass. */
export function failureOf(error: unknown): { failure: FailureKind; status: number | null } {
  if (error instanceof FeedParseError) return { failure: 'parse', status: null };
  const status = error instanceof FeedFetchError && error.status !== undefined ? error.status : null;
  return { failure: status === 404 || status === 410 ? 'gone' : 'transient', status };
}

/** The health after one outcome at `now`. Pure: the store runs it inside a transaction per outcome. */
export function nextHealth(health: SourceHealth, outcome: SourceOutcome, now: Date): SourceHealth {
  return outcome.kind === 'error' ? afterFailure(health, outcome, now) : afterSuccess(health, outcome, now);
}

function afterFailure(health: SourceHealth, outcome: Extract<SourceOutcome, { kind: 'error' }>, now: Date): SourceHealth {
  const goneStreak = outcome.failure === 'gone' ? health.goneStreak + 1 : 0;
  const parseStreak = outcome.failure === 'parse' ? health.parseStreak + 1 : 0;
  const failed: SourceHealth = {
    ...health,
    consecutiveFailures: health.consecutiveFailures + 1,
    goneStreak,
    parseStreak,
    lastError: outcome.message,
    lastErrorAt: now,
    lastErrorStatus: outcome.status,
    failingSince: health.failingSince ?? now,
  };
  if (health.state === 'disabled')
    // A failed probe: still disabled, asked again in a day; when and why it was disabled stay as they were.
    return { ...failed, nextProbeAt: new Date(now.getTime() + HEALTH_RULES.probeEveryMs) };
  const reason =
    goneStreak >= HEALTH_RULES.goneToDisable
      ? `answered ${outcome.status} ${goneStreak} times in a row`
      : parseStreak >= HEALTH_RULES.parseFailuresToDisable
        ? `its answer failed to parse ${parseStreak} times in a row`
        : null;
  if (!reason) return { ...failed, state: 'failing' };
  return {
    ...failed,
    state: 'disabled',
    disabledAt: now,
    disabledReason: reason,
    nextProbeAt: new Date(now.getTime() + HEALTH_RULES.probeEveryMs),
  };
}

function afterSuccess(health: SourceHealth, outcome: Exclude<SourceOutcome, { kind: 'error' }>, now: Date): SourceHealth {
  const created = outcome.kind === 'ok' ? outcome.created : 0;
  // Two overlapping runs may record out of order: an older instant never moves these back.
  const later = (a: Date | null) => (a && a > now ? a : now);
  let { newPostingGapsMinutes: gaps, newPostingsByDay: byDay, lastNewPostingAt } = health;
  if (created > 0) {
    // What a source lists before Scout first reads it is a backlog, not its rate.
    if (health.trackedSince) byDay = { ...byDay, [utcDay(now)]: (byDay[utcDay(now)] ?? 0) + created };
    if (lastNewPostingAt && now > lastNewPostingAt)
      gaps = [...gaps, Math.round((now.getTime() - lastNewPostingAt.getTime()) / 60_000)].slice(-HEALTH_RULES.gapHistory);
    lastNewPostingAt = later(lastNewPostingAt);
  }
  const next: SourceHealth = {
    ...health,
    trackedSince: health.trackedSince ?? now,
    lastSuccessAt: later(health.lastSuccessAt),
    consecutiveFailures: 0,
    goneStreak: 0,
    parseStreak: 0,
    lastError: null,
    failingSince: null,
    disabledAt: null,
    disabledReason: null,
    nextProbeAt: null,
    lastNewPostingAt,
    newPostingGapsMinutes: gaps,
    newPostingsByDay: withinWindow(byDay, now),
  };
  return { ...next, state: isSilent(next, now) ? 'silent' : 'ok' };
}

function withinWindow(byDay: Record<string, number>, now: Date): Record<string, number> {
  const oldest = utcDay(new Date(now.getTime() - (HEALTH_RULES.rateWindowDays - 1) * DAY_MS));
  return Object.fromEntries(Object.entries(byDay).filter(([day]) => day >= oldest));
}

/** The median gap between new postings, or null while there are too few to call it usual. */
export function usualGapMs(health: Pick<SourceHealth, 'newPostingGapsMinutes'>): number | null {
  const gaps = [...health.newPostingGapsMinutes].sort((a, b) => a - b);
  if (gaps.length < HEALTH_RULES.gapsBeforeSilence) return null;
  const mid = Math.floor(gaps.length / 2);
  const median = gaps.length % 2 === 1 ? gaps[mid] : (gaps[mid - 1] + gaps[mid]) / 2;
  return median * 60_000;
}

/** How long without a new posting makes this source silent; null while its history is too short to say. */
export function silentAfterMs(health: Pick<SourceHealth, 'newPostingGapsMinutes'>): number | null {
  const usual = usualGapMs(health);
  return usual === null ? null : Math.max(HEALTH_RULES.silentFloorMs, HEALTH_RULES.silentAfterMedianGaps * usual);
}

export function isSilent(health: Pick<SourceHealth, 'newPostingGapsMinutes' | 'lastNewPostingAt'>, now: Date): boolean {
  const after = silentAfterMs(health);
  return after !== null && health.lastNewPostingAt !== null && now.getTime() - health.lastNewPostingAt.getTime() > after;
}

/** New postings a day over the window (or since tracking began, when that is shorter; at least a day). */
export function postingsPerDay(health: Pick<SourceHealth, 'newPostingsByDay' | 'trackedSince'>, now: Date): number | null {
  if (!health.trackedSince) return null;
  const tracked = (now.getTime() - health.trackedSince.getTime()) / DAY_MS;
  const days = Math.min(HEALTH_RULES.rateWindowDays, Math.max(1, tracked));
  const total = Object.values(withinWindow(health.newPostingsByDay, now)).reduce((sum, n) => sum + n, 0);
  return total / days;
}

/**
 * A disabled source is asked only once its probe is due; any other is asked every run (its
 * minimum interval and Retry-After are the runner's to apply).
 */
export function isProbeDue(health: Pick<SourceHealth, 'state' | 'nextProbeAt'>, now: Date): boolean {
  return health.state !== 'disabled' || !health.nextProbeAt || health.nextProbeAt <= now;
}
