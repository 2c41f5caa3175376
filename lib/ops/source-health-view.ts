import type { DocumentData, Firestore } from 'firebase-admin/firestore';
import { feedStatesCollection, readFeedState } from '../feeds/feed-state';
import { HEALTH_RULES, postingsPerDay, usualGapMs, type HealthState, type SourceHealth, UNTRACKED } from '../feeds/source-health';
import { DAY_MS } from '../store/timestamps';

/**
 * One source's health as the ops page and `scout status` show it: the numbers of feeds/{source}
 * at `now`, and the one thing to do about its state. Both surfaces read it from here, so they
 * never disagree on a word.
 */
export type SourceHealthView = Pick<
  SourceHealth,
  | 'lastSuccessAt'
  | 'consecutiveFailures'
  | 'lastError'
  | 'lastErrorAt'
  | 'lastErrorStatus'
  | 'failingSince'
  | 'disabledAt'
  | 'disabledReason'
  | 'nextProbeAt'
  | 'lastNewPostingAt'
> & {
  source: string;
  kind: string;
  label: string | null;
  url: string | null;
  /** `never`: configured, and no run has fetched it yet. */
  state: HealthState | 'never';
  lastFetchedAt: Date | null;
  /** New postings a day over the last two weeks (or since it was first read); null before the first success. */
  postingsPerDay: number | null;
  /** Time since its last new posting; null while it never brought one. */
  sinceLastNewMs: number | null;
  /** The median gap between its new postings; null while its history is too short. */
  usualGapMs: number | null;
  /** What the operator does about it; null while it is ok. */
  whatToDo: string | null;
};

/** Feed documents read for a listing: far more than any deployment configures. */
export const SOURCES_LISTED = 100;

export function sourceHealthView(source: string, data: DocumentData, now: Date): SourceHealthView {
  const state = readFeedState(data)!;
  const view = viewOf(
    { source, kind: state.kind, label: state.label, url: state.url, lastFetchedAt: state.lastFetchedAt },
    state.health,
    now,
  );
  return { ...view, whatToDo: whatToDo(view) };
}

/** A configured source no run has fetched yet: the numbers of a source with no history. */
export function neverFetchedView(input: { source: string; kind?: string; label?: string | null; url: string | null }): SourceHealthView {
  const identity = { source: input.source, kind: input.kind ?? 'feed', label: input.label ?? null, url: input.url, lastFetchedAt: null };
  return { ...viewOf(identity, UNTRACKED, new Date(0)), state: 'never', whatToDo: 'never fetched: the next run reads it' };
}

function viewOf(
  identity: Pick<SourceHealthView, 'source' | 'kind' | 'label' | 'url' | 'lastFetchedAt'>,
  health: SourceHealth,
  now: Date,
): Omit<SourceHealthView, 'whatToDo'> {
  return {
    ...identity,
    state: health.state,
    lastSuccessAt: health.lastSuccessAt,
    consecutiveFailures: health.consecutiveFailures,
    lastError: health.lastError,
    lastErrorAt: health.lastErrorAt,
    lastErrorStatus: health.lastErrorStatus,
    failingSince: health.failingSince,
    disabledAt: health.disabledAt,
    disabledReason: health.disabledReason,
    nextProbeAt: health.nextProbeAt,
    postingsPerDay: postingsPerDay(health, now),
    lastNewPostingAt: health.lastNewPostingAt,
    sinceLastNewMs: health.lastNewPostingAt ? Math.max(0, now.getTime() - health.lastNewPostingAt.getTime()) : null,
    usualGapMs: usualGapMs(health),
  };
}

/** Every source feeds/ records, the ones that need the operator first, then by id. */
export async function readSourceHealth(db: Firestore, now: Date): Promise<SourceHealthView[]> {
  const snap = await feedStatesCollection(db).limit(SOURCES_LISTED).get();
  return sortForTheOperator(snap.docs.map((d) => sourceHealthView(d.id, d.data(), now)));
}

const URGENCY: Record<SourceHealthView['state'], number> = { disabled: 0, failing: 1, silent: 2, never: 3, ok: 4 };

export function sortForTheOperator<V extends SourceHealthView>(views: V[]): V[] {
  return [...views].sort((a, b) => URGENCY[a.state] - URGENCY[b.state] || a.source.localeCompare(b.source));
}

/** "Greenhouse · acme" (its label already names its kind), "feed · example.com", or the kind alone. */
export function sourceName(v: Pick<SourceHealthView, 'kind' | 'label'>): string {
  if (!v.label) return v.kind;
  return v.label.toLowerCase().startsWith(v.kind.toLowerCase()) ? v.label : `${v.kind} · ${v.label}`;
}

/** "2026-11-30 06:15 UTC": minutes are enough to find the run in the log. */
export const minuteUtc = (d: Date) => `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;

/** "9 days", "1 day", "5 hours", "40 min": how long, as a person says it. */
export function spanInWords(ms: number): string {
  if (ms >= 2 * DAY_MS) return `${Math.round(ms / DAY_MS)} days`;
  if (ms >= DAY_MS) return '1 day';
  const hours = Math.round(ms / 3_600_000);
  if (hours >= 2) return `${hours} hours`;
  if (ms >= 3_600_000) return '1 hour';
  return `${Math.max(1, Math.round(ms / 60_000))} min`;
}

/** Where the operator changes what a source points at. */
const whereItIsSet = (kind: string) =>
  kind === 'feed' ? 'check its URL in FEED_URLS or SOURCES' : 'check its params in SOURCES (a board token or site name that changed)';

function whatToDo(v: Omit<SourceHealthView, 'whatToDo'>): string | null {
  const since = v.failingSince ? ` since ${minuteUtc(v.failingSince)}` : '';
  const probe = v.nextProbeAt ? ` (next ${minuteUtc(v.nextProbeAt)})` : '';
  switch (v.state) {
    case 'disabled':
      return v.disabledReason?.includes('parse')
        ? `disabled: ${v.disabledReason}${since}; the provider may have changed its format: compare a fresh answer with the adapter's fixtures and fix the adapter; the daily probe re-enables it${probe}`
        : `disabled: the board ${v.disabledReason ?? 'answered 404/410'}${since}; ${whereItIsSet(v.kind)}; the daily probe re-enables it${probe}`;
    case 'failing':
      return `failing: ${v.consecutiveFailures} failure${v.consecutiveFailures === 1 ? '' : 's'} in a row${since}; every run tries again, and ${HEALTH_RULES.goneToDisable} answers of 404/410 or ${HEALTH_RULES.parseFailuresToDisable} parse failures in a row disable it; if it lasts, ${whereItIsSet(v.kind)} and the provider's status`;
    case 'silent':
      return `silent: no new posting for ${v.sinceLastNewMs === null ? 'a while' : spanInWords(v.sinceLastNewMs)}${
        v.usualGapMs === null ? '' : ` (usual gap ${spanInWords(v.usualGapMs)})`
      }; check the board still lists jobs`;
    default:
      return null;
  }
}
