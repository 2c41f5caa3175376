import type { DocumentData } from 'firebase-admin/firestore';
import type { Migration } from './migration';
import type { Applying, SchemaState } from './schema-version';

/**
 * The decisions of `scout migrate` on `schema/current`, as pure functions from the version read to
 * what to write; apply-migrations.ts writes each one guarded by that version, so two runs that
 * read the same version cannot both take a step (the second's write fails and it decides again
 * on what the first wrote).
 */

/** How long a step stays leased to its run without a checkpoint: a run that died frees it after this. */
export const STEP_LEASE_MS = 5 * 60_000;

export type ClaimDecision =
  | { kind: 'current'; version: number }
  | { kind: 'ahead'; version: number }
  | { kind: 'busy'; version: number; applying: Applying }
  | { kind: 'claim'; migration: Migration; resumeAfter: string | null; write: { create: DocumentData } | { update: DocumentData } };

/**
 * The next step for `owner`: none when the store is current (or newer than the code), none while
 * another run's lease on a step is live, else the step after the stored version, leased to this
 * run and resumed from the checkpoint of a run of it that died.
 */
export function planClaim(
  state: SchemaState | null,
  input: { owner: string; now: Date; migrations: readonly Migration[]; leaseMs?: number },
): ClaimDecision {
  const version = state?.version ?? 0;
  const code = input.migrations.length;
  if (version > code) return { kind: 'ahead', version };
  if (version === code) return { kind: 'current', version };
  const held = state?.applying;
  if (held && held.owner !== input.owner && held.leaseUntil.getTime() > input.now.getTime())
    return { kind: 'busy', version, applying: held };
  const migration = input.migrations[version];
  const resumed = held?.version === migration.version ? held : null;
  const applying: Applying = {
    version: migration.version,
    name: migration.name,
    owner: input.owner,
    leaseUntil: new Date(input.now.getTime() + (input.leaseMs ?? STEP_LEASE_MS)),
    startedAt: resumed?.startedAt ?? input.now,
    after: resumed?.after ?? null,
  };
  // A store with no schema document is taken as version 0: every step runs, and finds nothing to do where there is nothing.
  const write = state ? { update: { applying } } : { create: { version: 0, origin: 'migrated', applying, applied: [] } };
  return { kind: 'claim', migration, resumeAfter: applying.after, write };
}

/** Whether `owner` still holds the step `version`: every later write of the step checks it first. */
export const holds = (state: SchemaState | null, owner: string, version: number) =>
  state?.applying?.owner === owner && state.applying.version === version;

/** A checkpoint: where the step is, and its lease renewed; null when the step is no longer ours. */
export function planCheckpoint(
  state: SchemaState | null,
  input: { owner: string; version: number; after: string | null; now: Date; leaseMs?: number },
): DocumentData | null {
  if (!holds(state, input.owner, input.version)) return null;
  return {
    'applying.after': input.after ?? state!.applying!.after,
    'applying.leaseUntil': new Date(input.now.getTime() + (input.leaseMs ?? STEP_LEASE_MS)),
  };
}

/** The step applied: the version moves on and the lease goes; null when the step is no longer ours. */
export function planFinish(
  state: SchemaState | null,
  input: { owner: string; version: number; now: Date; changed: number },
): DocumentData | null {
  if (!holds(state, input.owner, input.version)) return null;
  const entry = { version: input.version, name: state!.applying!.name, at: input.now, owner: input.owner, changed: input.changed };
  return { version: input.version, applying: null, applied: [...state!.applied.filter((a) => a.version !== input.version), entry] };
}

/** A step that failed: its lease ends now, so the next run takes it at once, from its last checkpoint. */
export function planRelease(state: SchemaState | null, input: { owner: string; version: number; now: Date }): DocumentData | null {
  if (!holds(state, input.owner, input.version)) return null;
  return { 'applying.leaseUntil': input.now };
}
