import type { Firestore } from 'firebase-admin/firestore';

/**
 * One numbered change to what the store holds, applied once per store by `scout migrate`
 * (apply-migrations.ts). `version` is the schema version the store is at once it is applied: the
 * list in migrations.ts numbers them 1, 2, 3… in the order they run.
 *
 * `apply` must be idempotent and resumable: a run that dies half-way is followed by another that
 * calls it again, from its last checkpoint. With `dryRun` it writes nothing and counts what it
 * would change (`scout migrate --dry-run`). It calls `checkpoint` after each batch of its walk;
 * that records where it is and keeps the step leased to this run, and throws when another run
 * has taken the step over (then this one must stop writing).
 */
export type Migration = {
  version: number;
  /** Its module's name, as `scout migrate` and the ops page print it: `per-pair-ledger`. */
  name: string;
  /** What it changes in the store, in one sentence. */
  changes: string;
  /** Why a store may still need it. */
  why: string;
  apply(ctx: MigrationContext): Promise<MigrationOutcome>;
};

export type MigrationContext = {
  db: Firestore;
  /** The run's start, for what a migration records (a cursor's `doneAt`). */
  now: Date;
  /** DIGEST_HOUR_UTC: the hour items queued before schedules were due at. */
  digestHourUtc: number;
  /** Count what would change, write nothing (not even a checkpoint's cursor). */
  dryRun: boolean;
  /** The last checkpoint of a run of this step that did not finish; null from the start. */
  resumeAfter: string | null;
  checkpoint(after: string | null): Promise<void>;
};

/** `changed`: documents written (with `dryRun`: that would be); `note`: one line for the operator when there is more to say. */
export type MigrationOutcome = { changed: number; note?: string };

/** The step is applied only when every document it must change could be read; the operator fixes the rest by hand. */
export class MigrationBlocked extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationBlocked';
  }
}
