import type { DocumentData, DocumentReference, DocumentSnapshot, Timestamp, UpdateData, WriteBatch } from 'firebase-admin/firestore';
import { isLostRace } from './firestore-errors';
import { GuardedUpdateExhausted, guardedUpdate, guardedWrite } from './guarded-update';

/**
 * The one lease of Scout: a document some run takes for a while, to do work nobody else may do at
 * the same time (the scan lock, an outbox row's send, a verdict's model call, a token refresh).
 *
 * - Take: read, look, and if the document is free or its lease expired, write the lease fields:
 *   create() when it is absent, else an update fenced by the version read (guardedUpdate). Two
 *   takers of one version: one write lands, the other is refused and reads again or walks away.
 * - Hold: every later write of the holder (renew, record its result, release) is fenced by the
 *   version its own previous write produced, so a holder whose lease was taken over writes nothing.
 * - Wait: a run that finds a live lease polls until the holder writes its result, or its lease
 *   expires and the run takes it over.
 *
 * Which fields say "held, by whom, until when" is each document's own (its converter and id live
 * next to its data); `look` reads them. Time comes in as `now` and `sleep`: nothing here reads the
 * wall clock or sets a timer, so a test moves time itself.
 */

/** The precondition of a write fenced by a version the writer holds: it lands only if nobody wrote since. */
export type Fence = { lastUpdateTime: Timestamp };
export const fenceAt = (version: Timestamp): Fence => ({ lastUpdateTime: version });

/** What a taker makes of the version it read: take it with these fields, or leave it to its live holder, or done. */
export type LeaseLook<T> = { take: DocumentData; as: T } | { held: T } | { done: T };

/** `taken`: ours, at this version. `lost`: the document kept moving under us for every try (`cause`: the last refusal). */
export type TakeOutcome<T> = { taken: Timestamp; as: T } | { held: T } | { done: T } | { lost: true; cause: unknown };

export type TakeOptions<A, D extends DocumentData> = {
  /** The version already read (with others, in one getAll): the first look is at it. */
  read?: DocumentSnapshot<A, D>;
  /** Looks before giving up: 1 walks away at the first lost race, more read again and look again. */
  maxTries?: number;
};

export type LeaseClock = {
  now: () => Date;
  /** Resolves after `ms`; rejects when `signal` aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
};

/** Takes the lease if `look` finds it free or expired: one write, fenced by the version looked at. */
export async function takeLease<T, A = DocumentData, D extends DocumentData = DocumentData>(
  ref: DocumentReference<A, D>,
  look: (snap: DocumentSnapshot<A, D>) => LeaseLook<T> | Promise<LeaseLook<T>>,
  options: TakeOptions<A, D> = {},
): Promise<TakeOutcome<T>> {
  try {
    const { result, version } = await guardedWrite<TakeOutcome<T> | { as: T }, A, D>(
      ref,
      async (snap) => {
        const seen = await look(snap);
        if (!('take' in seen)) return { done: seen };
        const result = { as: seen.as };
        return snap.exists ? { update: seen.take, result } : { create: seen.take, result };
      },
      { read: options.read, maxTries: options.maxTries ?? 1, action: 'taking its lease' },
    );
    return version ? { taken: version, as: (result as { as: T }).as } : (result as TakeOutcome<T>);
  } catch (error) {
    if (error instanceof GuardedUpdateExhausted) return { lost: true, cause: error.cause };
    throw error;
  }
}

/** Adds a take to a batch of takes of versions already read: create() when absent, else fenced by the version read. */
export function addTake(batch: WriteBatch, snap: DocumentSnapshot, fields: DocumentData): void {
  const raw = snap.ref.withConverter(null);
  if (snap.exists) batch.update(raw, fields, fenceAt(snap.updateTime!));
  else batch.create(raw, fields);
}

/** Adds a holder's write to a batch: an update (renew, result, release) or a delete, fenced by the version it holds or read. */
export function addHeldWrite(batch: WriteBatch, ref: DocumentReference, version: Timestamp, fields: UpdateData<DocumentData> | null): void {
  const raw = ref.withConverter(null);
  if (fields) batch.update(raw, fields, fenceAt(version));
  else batch.delete(raw, fenceAt(version));
}

/**
 * Commits a batch of takes or holders' writes, all or nothing: each document's new version, in the
 * order written, or null when any of them had moved (a take lost, a lease taken over).
 */
export async function commitFenced(batch: WriteBatch): Promise<Timestamp[] | null> {
  try {
    return (await batch.commit()).map((written) => written.writeTime);
  } catch (error) {
    if (isLostRace(error)) return null;
    throw error;
  }
}

/** Renews or finishes a lease held at `version` (fields null: deletes it): the new version, or null if it was taken over. */
export async function writeHeld(
  ref: DocumentReference,
  version: Timestamp,
  fields: UpdateData<DocumentData> | null,
): Promise<Timestamp | null> {
  const batch = ref.firestore.batch();
  addHeldWrite(batch, ref, version, fields);
  return (await commitFenced(batch))?.[0] ?? null;
}

/**
 * Writes as the holder of a lease it knows by owner rather than by version (it kept none): read,
 * and write what `plan` makes of that read, fenced by it, only while `plan` finds the holder still
 * us (null: not ours any more). A write that loses to another writer reads again and plans again
 * (up to `maxTries`); true when it landed, false when the lease was not, or no longer, ours.
 */
export async function writeIfOurs<A, D extends DocumentData>(
  ref: DocumentReference<A, D>,
  plan: (snap: DocumentSnapshot<A, D>) => { update: UpdateData<DocumentData> } | { delete: true } | null,
  options: { maxTries?: number; action?: string } = {},
): Promise<boolean> {
  try {
    return await guardedUpdate<boolean, A, D>(
      ref,
      (snap) => {
        const write = snap.exists ? plan(snap) : null;
        return write ? { ...write, result: true } : { done: false };
      },
      { maxTries: options.maxTries, action: options.action ?? 'writing as its holder' },
    );
  } catch (error) {
    if (error instanceof GuardedUpdateExhausted) return false;
    throw error;
  }
}

/** Releases a lease its holder knows by owner: deletes it, fenced by the read, only if `ours` says it is still ours. */
export const releaseIfOurs = <A, D extends DocumentData>(ref: DocumentReference<A, D>, ours: (snap: DocumentSnapshot<A, D>) => boolean) =>
  writeIfOurs(ref, (snap) => (ours(snap) ? { delete: true } : null), { maxTries: 1, action: 'releasing its lease' });

/**
 * Takes the lease, or waits for its holder: while `look` finds it held, sleeps `pollMs` and reads
 * again, until the holder's result is there (`done`), its lease expired (taken over), or `until`
 * passes (`held`: the holder's, still live). Gives up after `maxLost` lost takes (`lost`).
 */
export async function takeOrAwait<T, A = DocumentData, D extends DocumentData = DocumentData>(
  ref: DocumentReference<A, D>,
  look: (snap: DocumentSnapshot<A, D>) => LeaseLook<T>,
  input: { clock: LeaseClock; pollMs: number; until: Date; maxLost: number; signal?: AbortSignal },
): Promise<TakeOutcome<T>> {
  let lost = 0;
  for (;;) {
    const outcome = await takeLease(ref, look);
    if ('lost' in outcome) {
      if (++lost >= input.maxLost) return outcome;
      continue;
    }
    if (!('held' in outcome)) return outcome;
    if (input.clock.now() >= input.until) return outcome;
    await input.clock.sleep(input.pollMs, input.signal);
  }
}

/**
 * Waits on many leases other runs hold, reading them together: sleeps `pollMs`, reads the keys
 * still held in one round trip, and `settle`s each (true: its result is there, or its holder gave
 * it up or died). Ends when none is held, at `until`, or when `signal` aborts. Never reads before
 * the first sleep (the caller has just read them). Answers the keys still held.
 */
export async function awaitHolders<K, S>(
  held: Iterable<K>,
  input: {
    read: (keys: K[]) => Promise<Iterable<[K, S]>>;
    settle: (key: K, snap: S) => boolean;
    clock: LeaseClock;
    pollMs: number;
    until: Date;
    signal?: AbortSignal;
  },
): Promise<K[]> {
  const waiting = new Set(held);
  while (waiting.size > 0 && input.clock.now() < input.until && !input.signal?.aborted) {
    try {
      await input.clock.sleep(input.pollMs, input.signal);
    } catch {
      break;
    }
    for (const [key, snap] of await input.read([...waiting])) if (input.settle(key, snap)) waiting.delete(key);
  }
  return [...waiting];
}
