import type { DocumentData, DocumentReference, DocumentSnapshot, Timestamp, UpdateData, WriteBatch } from 'firebase-admin/firestore';
import { isLostRace } from './firestore-errors';

/**
 * Reads before giving up, for every guarded update. Each lost guard is someone else's successful
 * write, so with k writers on one document at once a writer loses at most k − 1 times: ten covers
 * a subscriber saving from several tabs while an unsubscribe and a signup land. Only a document
 * written this often in a row, without pause, exhausts it.
 */
export const GUARDED_UPDATE_MAX_TRIES = 10;

/**
 * What `decide` makes of the version read:
 * - `done`: nothing to write; `guardedUpdate` answers `done`.
 * - `update`: update the document, guarded by the version read, then answer `result`.
 * - `create`: create the document (it did not exist when read: create() is its own guard).
 * - `delete`: delete the document, guarded by the version read, then answer `result`.
 * `update` and `create` are fields as stored, not passed through the ref's converter (an update
 * never is). `alongside` adds writes that must land in the same batch, or not at all (e.g. the
 * outbox row of the email the change calls for).
 */
export type GuardedStep<R> =
  | { done: R }
  | { update: UpdateData<DocumentData>; result: R; alongside?: (batch: WriteBatch) => void }
  | { create: DocumentData; result: R; alongside?: (batch: WriteBatch) => void }
  | { delete: true; result: R; alongside?: (batch: WriteBatch) => void };

export type GuardedUpdateOptions<R> = {
  /** Reads before giving up; GUARDED_UPDATE_MAX_TRIES unless a caller has a reason. */
  maxTries?: number;
  /** What the update does, for the error when the tries run out: "users/x kept changing while <action>". */
  action?: string;
  /** Told each lost race (a lost guard, or a create that found a document) before the re-read. */
  onLost?: (error: unknown, step: Exclude<GuardedStep<R>, { done: R }>) => void;
};

/** The version already read (e.g. in one getAll with others): the first try decides on it instead of reading again. */
export type ReadFirst<A, D extends DocumentData> = { read?: DocumentSnapshot<A, D> };

/** The document kept changing between our read and our write, `tries` times in a row; nothing of ours was written. */
export class GuardedUpdateExhausted extends Error {
  constructor(
    readonly path: string,
    readonly tries: number,
    action: string,
    cause: unknown,
  ) {
    super(`${path} kept changing while ${action} (${tries} tries); try again`, { cause });
    this.name = 'GuardedUpdateExhausted';
  }
}

/**
 * Read, decide on what was read, write guarded by the read's version (`lastUpdateTime`); when
 * someone else wrote in between, the write fails as a whole and the decision is taken again on
 * the fresh version: never check-then-act, never a lost update. `decide` must be safe to call
 * again (it is, per try, the only thing that sees the document) and is told which try it is.
 *
 * Throws GuardedUpdateExhausted after `maxTries` lost races; any other error at once.
 */
export async function guardedUpdate<R, A = DocumentData, D extends DocumentData = DocumentData>(
  ref: DocumentReference<A, D>,
  decide: (snap: DocumentSnapshot<A, D>, attempt: number) => GuardedStep<R> | Promise<GuardedStep<R>>,
  options: GuardedUpdateOptions<R> & ReadFirst<A, D> = {},
): Promise<R> {
  return (await guardedWrite(ref, decide, options)).result;
}

/**
 * guardedUpdate, answering also the version our write gave the document (null when nothing was
 * written): the fence a holder's next write needs, as a lease's renew and release do (lease.ts).
 */
export async function guardedWrite<R, A = DocumentData, D extends DocumentData = DocumentData>(
  ref: DocumentReference<A, D>,
  decide: (snap: DocumentSnapshot<A, D>, attempt: number) => GuardedStep<R> | Promise<GuardedStep<R>>,
  options: GuardedUpdateOptions<R> & ReadFirst<A, D> = {},
): Promise<{ result: R; version: Timestamp | null }> {
  const maxTries = options.maxTries ?? GUARDED_UPDATE_MAX_TRIES;
  if (!Number.isInteger(maxTries) || maxTries < 1) throw new Error(`guardedUpdate: maxTries must be a positive integer, not ${maxTries}`);
  const raw = ref.withConverter(null);
  let lastLoss: unknown = null;
  for (let attempt = 1; attempt <= maxTries; attempt++) {
    const snap = attempt === 1 && options.read ? options.read : await ref.get();
    const step = await decide(snap, attempt);
    if ('done' in step) return { result: step.done, version: null };
    const batch = raw.firestore.batch();
    if ('create' in step) {
      batch.create(raw, step.create);
    } else {
      if (!snap.exists || !snap.updateTime) throw new Error(`guardedUpdate: ${ref.path} did not exist when read; nothing to change`);
      const guard = { lastUpdateTime: snap.updateTime };
      if ('update' in step) batch.update(raw, step.update, guard);
      else batch.delete(raw, guard);
    }
    step.alongside?.(batch);
    try {
      const [written] = await batch.commit();
      return { result: step.result, version: written.writeTime };
    } catch (error) {
      // Lost to another writer (or, for an update, to a delete): nothing of ours landed; read again.
      if (!isLostRace(error)) throw error;
      lastLoss = error;
      options.onLost?.(error, step);
    }
  }
  throw new GuardedUpdateExhausted(ref.path, maxTries, options.action ?? 'being updated', lastLoss);
}
