import { FieldValue, type Firestore } from 'firebase-admin/firestore';
import type { Logger } from '../runtime/logger';
import { clientLogId } from '../http/client-address';
import { isAlreadyExists } from '../store/firestore-errors';
import { DAY_MS, toDate, utcDay } from '../store/timestamps';
import { countAndRead, rateLimitsCollection, signupEmailsDoc } from '../http/rate-limit';

/**
 * Failed authentications at the two doors with a secret: the cron endpoint and the ops page's
 * login. Each is one log line naming the client by a keyed hash of its trusted address (never the
 * address, never what was offered), and a count in Firestore for the ops page:
 *
 *   rateLimits/auth-failures_{kind}_h{hour}, rateLimits/auth-failures_{kind}_d{YYYY-MM-DD}
 *
 * Anyone can knock, so neither the log nor the store may grow with the knocking: each instance
 * writes at most `linesPerMinute` lines (and counter updates) per kind a minute; the rest of that
 * minute is left out, then logged as one summary line and added to the counters in one write by
 * the next failure of that kind on the same instance. Counts are exact up to that rate; beyond it
 * they arrive late, and an instance that ends before its next failure loses what it left out.
 */
export const AUTH_FAILURE_LOG = { linesPerMinute: 30 } as const;

export type AuthFailureKind = 'cron' | 'login';

type LeftOut = { kind: AuthFailureKind; count: number; since: Date };

/** One per process (lib/wiring/production-deps.ts): the minute it is in, lines written, failures left out. */
export type AuthFailureLog = {
  admit(kind: AuthFailureKind, at: Date): { line: boolean; leftOut: LeftOut[] };
};

export function createAuthFailureLog(linesPerMinute: number = AUTH_FAILURE_LOG.linesPerMinute): AuthFailureLog {
  const minutes = new Map<AuthFailureKind, { minute: number; lines: number; leftOut: number }>();
  return {
    admit(kind, at) {
      const minute = Math.floor(at.getTime() / 60_000);
      const state = minutes.get(kind);
      const leftOut: LeftOut[] = [];
      if (state && state.minute !== minute && state.leftOut > 0)
        leftOut.push({ kind, count: state.leftOut, since: new Date(state.minute * 60_000) });
      const current = state && state.minute === minute ? state : { minute, lines: 0, leftOut: 0 };
      minutes.set(kind, current);
      if (current.lines < linesPerMinute) {
        current.lines += 1;
        return { line: true, leftOut };
      }
      current.leftOut += 1;
      return { line: false, leftOut };
    },
  };
}

type RecordDeps = { db: Firestore; log: Logger; authFailureLog: AuthFailureLog; config: { LINK_SECRET: string } };

/**
 * Logs and counts one failed authentication. `event` and `fields` make the line (never a secret
 * or an address). A store that cannot count does not change the answer the caller gets.
 */
export async function recordAuthFailure(
  deps: RecordDeps,
  input: { kind: AuthFailureKind; event: string; clientAddress: string; fields?: Record<string, unknown>; now: Date },
): Promise<void> {
  const { line, leftOut } = deps.authFailureLog.admit(input.kind, input.now);
  const counts: { at: Date; count: number }[] = [];
  for (const gap of leftOut) {
    deps.log('auth.failures_suppressed', { kind: gap.kind, count: gap.count, since: gap.since.toISOString() });
    counts.push({ at: gap.since, count: gap.count });
  }
  if (line) {
    deps.log(input.event, { client: clientLogId(input.clientAddress, deps.config.LINK_SECRET), ...input.fields });
    counts.push({ at: input.now, count: 1 });
  }
  if (counts.length === 0) return;
  try {
    const batch = deps.db.batch();
    for (const { at, count } of counts) {
      for (const [ref, expireAt] of counterDocs(deps.db, input.kind, at))
        batch.set(ref, { kind: `auth-failures-${input.kind}`, count: FieldValue.increment(count), expireAt }, { merge: true });
    }
    await batch.commit();
  } catch (error) {
    deps.log('auth.count_failed', { kind: input.kind, error: error instanceof Error ? error.message : String(error) });
  }
}

export type AuthFailureCounts = Record<AuthFailureKind, { hour: number; day: number }>;

/**
 * The global limit on wrong admin secrets: `failuresPerWindow` in a fixed `failureWindowMs`
 * window, from any number of clients, lock the login for `lockMs`.
 * rateLimits/admin-login-failures_w{window} counts them, and the request whose failure reaches
 * the limit creates rateLimits/admin-login-lock_w{window} (the check is the write: one lock,
 * logged once, per window). A lock refuses every login, the right secret too, without comparing
 * it; sessions already open keep working. Windows are fixed, so up to twice the limit can
 * straddle a boundary.
 */
export const LOGIN_LOCK = { failureWindowMs: 10 * 60_000, failuresPerWindow: 20, lockMs: 15 * 60_000 } as const;

export type LoginLock = { until: Date; failures: number };

/** Counts one wrong secret; returns the lock when this failure is the one that set it (log it then). */
export async function countLoginFailure(db: Firestore, now: Date): Promise<LoginLock | null> {
  const window = Math.floor(now.getTime() / LOGIN_LOCK.failureWindowMs);
  const windowEnd = (window + 1) * LOGIN_LOCK.failureWindowMs;
  const failures = await countAndRead(rateLimitsCollection(db).doc(`admin-login-failures_w${window}`), {
    kind: 'admin-login-failures',
    expireAt: new Date(windowEnd + DAY_MS),
  });
  if (failures < LOGIN_LOCK.failuresPerWindow) return null;
  const lock = { until: new Date(now.getTime() + LOGIN_LOCK.lockMs), failures };
  try {
    await lockDocs(db, now)[0].create({
      ...lock,
      kind: 'admin-login-lock',
      createdAt: now,
      expireAt: new Date(lock.until.getTime() + DAY_MS),
    });
    return lock;
  } catch (error) {
    if (isAlreadyExists(error)) return null;
    throw error;
  }
}

/** The lock in force at `now`, if any (one round trip). */
export async function readLoginLock(db: Firestore, now: Date): Promise<LoginLock | null> {
  return lockIn(await db.getAll(...lockDocs(db, now)), now);
}

export const lockRetryAfterSec = (lock: LoginLock, now: Date) => Math.max(1, Math.ceil((lock.until.getTime() - now.getTime()) / 1000));

export type DoorView = {
  failures: AuthFailureCounts;
  loginLock: LoginLock | null;
  /** Emails the signup form caused this hour, against SIGNUP_CONFIRMATIONS_PER_HOUR. */
  signupEmails: { hour: number; cap: number | null };
};

/** What the ops page shows of the doors: this hour's and this UTC day's failures, the login lock, the signup emails' hour; one read of eight documents. */
export async function readDoor(db: Firestore, input: { now: Date; signupEmailsPerHour?: number }): Promise<DoorView> {
  const kinds: AuthFailureKind[] = ['login', 'cron'];
  const counters = kinds.flatMap((kind) => counterDocs(db, kind, input.now).map(([ref]) => ref));
  const locks = lockDocs(db, input.now);
  const snaps = await db.getAll(...counters, signupEmailsDoc(db, input.now), ...locks);
  const count = (i: number) => {
    const value: unknown = snaps[i].get('count');
    return typeof value === 'number' ? value : 0;
  };
  return {
    failures: { login: { hour: count(0), day: count(1) }, cron: { hour: count(2), day: count(3) } },
    signupEmails: { hour: count(4), cap: input.signupEmailsPerHour ?? null },
    loginLock: lockIn(snaps.slice(5), input.now),
  };
}

/** The hour's and the day's counter, each with the `expireAt` for the TTL policy. */
function counterDocs(db: Firestore, kind: AuthFailureKind, at: Date) {
  const hour = Math.floor(at.getTime() / 3_600_000);
  const day = utcDay(at);
  return [
    [rateLimitsCollection(db).doc(`auth-failures_${kind}_h${hour}`), new Date((hour + 1) * 3_600_000 + 2 * DAY_MS)],
    [rateLimitsCollection(db).doc(`auth-failures_${kind}_d${day}`), new Date(Date.parse(`${day}T00:00:00Z`) + 3 * DAY_MS)],
  ] as const;
}

/** A lock lasts longer than a window: the windows one in force at `now` can have been created in, this one first. */
function lockDocs(db: Firestore, now: Date) {
  const window = Math.floor(now.getTime() / LOGIN_LOCK.failureWindowMs);
  const reach = Math.ceil(LOGIN_LOCK.lockMs / LOGIN_LOCK.failureWindowMs);
  return Array.from({ length: reach + 1 }, (_, i) => rateLimitsCollection(db).doc(`admin-login-lock_w${window - i}`));
}

function lockIn(snaps: FirebaseFirestore.DocumentSnapshot[], now: Date): LoginLock | null {
  let lock: LoginLock | null = null;
  for (const snap of snaps) {
    const until = toDate(snap.get('until'));
    if (until && until > now && (!lock || until > lock.until))
      lock = { until, failures: (snap.get('failures') as number | undefined) ?? 0 };
  }
  return lock;
}
