import type { DocumentData, Firestore } from 'firebase-admin/firestore';
import { toDate, type Stored } from '../store/timestamps';
import { COLLECTIONS } from '../store/collections';
import { guardedUpdate } from '../store/guarded-update';
import type { Validators } from './source-adapter';
import { nextHealth, UNTRACKED, type FailureKind, type HealthState, type SourceHealth, type SourceOutcome } from './source-health';

/** feeds/{source}: the validators for the next conditional request and the health an operator reads. */
export type FeedState = {
  kind: string;
  label: string | null;
  url: string | null;
  etag: string | null;
  lastModified: string | null;
  lastFetchedAt: Date | null;
  lastError: string | null;
  /** From a 429/503's Retry-After: the source is not asked before this. */
  retryAfter: Date | null;
  /** Postings the source listed at its last full read (a 304 keeps the count of the listing it confirmed). */
  lastItemCount: number | null;
  health: SourceHealth;
};

export const feedStatesCollection = (db: Firestore) => db.collection(COLLECTIONS.feedStates);

const HEALTH_STATES: readonly HealthState[] = ['ok', 'failing', 'disabled', 'silent'];

export function readFeedState(data: DocumentData | undefined): FeedState | null {
  if (!data) return null;
  const d = data as Stored<Omit<FeedState, 'health'>>;
  return {
    kind: d.kind ?? 'feed',
    label: d.label ?? null,
    url: d.url ?? null,
    etag: d.etag ?? null,
    lastModified: d.lastModified ?? null,
    lastFetchedAt: toDate(d.lastFetchedAt),
    lastError: d.lastError ?? null,
    retryAfter: toDate(d.retryAfter),
    lastItemCount: typeof d.lastItemCount === 'number' ? d.lastItemCount : null,
    health: readHealth(data),
  };
}

/**
 * The health fields of a feeds/ document. A document written before health was recorded reads as
 * what it can tell: its failures so far (failing) or ok, with no history.
 */
export function readHealth(data: DocumentData): SourceHealth {
  const d = data as StoredHealth;
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const consecutiveFailures = count(d.consecutiveFailures);
  const state = HEALTH_STATES.includes(d.health) ? d.health : consecutiveFailures > 0 ? 'failing' : 'ok';
  return {
    state,
    trackedSince: toDate(d.trackedSince),
    lastSuccessAt: toDate(d.lastSuccessAt),
    consecutiveFailures,
    goneStreak: count(d.goneStreak),
    parseStreak: count(d.parseStreak),
    lastError: d.lastError ?? null,
    lastErrorAt: toDate(d.lastErrorAt),
    lastErrorStatus: typeof d.lastErrorStatus === 'number' ? d.lastErrorStatus : null,
    failingSince: toDate(d.failingSince) ?? (consecutiveFailures > 0 ? toDate(d.lastErrorAt) : null),
    disabledAt: toDate(d.disabledAt),
    disabledReason: d.disabledReason ?? null,
    nextProbeAt: toDate(d.nextProbeAt),
    lastNewPostingAt: toDate(d.lastNewPostingAt),
    newPostingGapsMinutes: Array.isArray(d.newPostingGapsMinutes) ? d.newPostingGapsMinutes.filter((n) => typeof n === 'number') : [],
    newPostingsByDay:
      d.newPostingsByDay && typeof d.newPostingsByDay === 'object'
        ? Object.fromEntries(Object.entries(d.newPostingsByDay).filter(([, n]) => typeof n === 'number'))
        : {},
  };
}

/** A feeds/ document's health fields as healthFields writes them: the state under `health`. */
type StoredHealth = Stored<Omit<SourceHealth, 'state'>> & { health: HealthState };

/** The health as stored: every field whole (a map is replaced, never merged, so old days drop out). */
function healthFields(health: SourceHealth): DocumentData {
  const { state, ...rest } = health;
  return { health: state, ...rest };
}

type SourceDescription = { source: string; kind?: string; label?: string; url: string | null; now: Date };

function described(input: SourceDescription) {
  return { kind: input.kind ?? 'feed', ...(input.label ? { label: input.label } : {}), url: input.url };
}

/**
 * One fetch's outcome on feeds/{source}: read, compute the next health, write guarded by the
 * version read. Two overlapping runs recording the same source both land, one after the other,
 * and neither loses the other's count (a lost guard re-reads and decides again).
 */
async function recordOutcome(db: Firestore, input: SourceDescription, outcome: SourceOutcome, fields: DocumentData): Promise<SourceHealth> {
  return guardedUpdate(
    feedStatesCollection(db).doc(input.source),
    (snap) => {
      const before = snap.exists ? readHealth(snap.data()!) : UNTRACKED;
      const health = nextHealth(before, outcome, input.now);
      const doc = { ...described(input), lastFetchedAt: input.now, ...fields, ...healthFields(health) };
      return snap.exists ? { update: doc, result: health } : { create: doc, result: health };
    },
    { action: `recording a fetch of ${input.source}` },
  );
}

export async function recordFeedSuccess(
  db: Firestore,
  input: SourceDescription & { validators?: Validators | null; postings: number | null; created?: number },
): Promise<SourceHealth> {
  return recordOutcome(db, input, input.postings === null ? { kind: 'not-modified' } : { kind: 'ok', created: input.created ?? 0 }, {
    ...(input.validators !== undefined
      ? { etag: input.validators?.etag ?? null, lastModified: input.validators?.lastModified ?? null }
      : {}),
    lastStatus: input.postings === null ? 'not-modified' : 'ok',
    ...(input.postings !== null ? { lastItemCount: input.postings } : {}),
    retryAfter: null,
  });
}

export async function recordFeedFailure(
  db: Firestore,
  input: SourceDescription & { error: string; retryAfterSeconds?: number; failure?: FailureKind; status?: number | null },
): Promise<SourceHealth> {
  const outcome: SourceOutcome = {
    kind: 'error',
    failure: input.failure ?? 'transient',
    status: input.status ?? null,
    message: input.error,
  };
  return recordOutcome(db, input, outcome, {
    lastStatus: 'error',
    retryAfter: input.retryAfterSeconds ? new Date(input.now.getTime() + input.retryAfterSeconds * 1000) : null,
  });
}
