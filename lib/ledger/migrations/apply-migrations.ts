import type { DocumentData, Firestore } from 'firebase-admin/firestore';
import { GUARDED_UPDATE_MAX_TRIES } from '../../store/guarded-update';
import { takeLease, writeIfOurs } from '../../store/lease';
import type { Migration, MigrationOutcome } from './migration';
import { MIGRATIONS } from './migrations';
import { planCheckpoint, planClaim, planFinish, planRelease, type ClaimDecision } from './plan-step';
import { readSchema, schemaFromStored, schemaRef, type Applying } from './schema-version';

export type AppliedMigration = MigrationOutcome & { version: number; name: string };

export type MigrateReport = {
  /** The store's version when this run started (0 for a store with no schema document). */
  from: number;
  /** Its version when this run stopped. */
  to: number;
  /** The code's version: the store is current when `to` is this. */
  code: number;
  applied: AppliedMigration[];
  /** Another run holds a step: this one stopped before it. */
  busy: Applying | null;
};

/** Another run took the step over (this run's lease ran out): this run stops writing. */
export class StepTakenOver extends Error {
  constructor(version: number) {
    super(`another \`scout migrate\` took over migration ${version} after this run's lease ran out; this run stopped`);
    this.name = 'StepTakenOver';
  }
}

/**
 * `scout migrate`: applies, in order, every migration after the store's version, each once. A
 * step is leased to this run (`owner`) on `schema/current` before it starts, renewed at each of
 * its checkpoints and released when it ends, all by updates guarded by the version read; so a
 * second run started meanwhile stops at the step the first holds (`busy`), and a run that died
 * leaves its step to the next run once the lease lapses, resumed from its last checkpoint. A
 * step that throws frees its lease at once and the error goes to the caller; the steps before it
 * stay applied.
 */
export async function applyMigrations(
  db: Firestore,
  input: {
    owner: string;
    clock: () => Date;
    digestHourUtc: number;
    migrations?: readonly Migration[];
    leaseMs?: number;
    onStep?: (migration: Migration) => void;
  },
): Promise<MigrateReport> {
  const migrations = input.migrations ?? MIGRATIONS;
  const report: MigrateReport = { from: -1, to: -1, code: migrations.length, applied: [], busy: null };
  for (;;) {
    const claim = await claimStep(db, { ...input, migrations });
    // The first read of schema/current says where the store started.
    if (report.from < 0) {
      report.from = claim.kind === 'claim' ? claim.migration.version - 1 : claim.version;
      report.to = report.from;
    }
    if (claim.kind !== 'claim') {
      report.to = claim.version;
      if (claim.kind === 'busy') report.busy = claim.applying;
      return report;
    }
    const { migration } = claim;
    input.onStep?.(migration);
    const outcome = await runStep(db, input, migration, claim.resumeAfter);
    const step = { owner: input.owner, version: migration.version };
    await writeStep(db, (state) => planFinish(state, { ...step, now: input.clock(), changed: outcome.changed }), step.version);
    report.applied.push({ version: migration.version, name: migration.name, ...outcome });
    report.to = migration.version;
  }
}

/** Takes the next step's lease on schema/current (lib/store/lease.ts), or says why there is none to take. */
async function claimStep(
  db: Firestore,
  input: { owner: string; clock: () => Date; migrations: readonly Migration[]; leaseMs?: number },
): Promise<ClaimDecision> {
  const outcome = await takeLease<ClaimDecision>(
    schemaRef(db),
    (snap) => {
      const decision = planClaim(snap.exists ? schemaFromStored(snap.data()!) : null, { ...input, now: input.clock() });
      if (decision.kind !== 'claim') return { done: decision };
      return { take: 'create' in decision.write ? decision.write.create : decision.write.update, as: decision };
    },
    { maxTries: GUARDED_UPDATE_MAX_TRIES },
  );
  if ('lost' in outcome) throw new Error('schema/current kept changing while taking a migration step; try again', { cause: outcome.cause });
  return 'done' in outcome ? outcome.done : 'held' in outcome ? outcome.held : outcome.as;
}

async function runStep(
  db: Firestore,
  input: { owner: string; clock: () => Date; digestHourUtc: number; leaseMs?: number },
  migration: Migration,
  resumeAfter: string | null,
): Promise<MigrationOutcome> {
  const step = { owner: input.owner, version: migration.version };
  try {
    return await migration.apply({
      db,
      dryRun: false,
      now: input.clock(),
      digestHourUtc: input.digestHourUtc,
      resumeAfter,
      checkpoint: (after) =>
        writeStep(db, (state) => planCheckpoint(state, { ...step, after, now: input.clock(), leaseMs: input.leaseMs }), step.version),
    });
  } catch (error) {
    // Best effort: a release that fails leaves the lease to lapse, and the step's own error is the one to tell.
    if (!(error instanceof StepTakenOver))
      await writeStep(db, (state) => planRelease(state, { ...step, now: input.clock() }), step.version).catch(() => {});
    throw error;
  }
}

/** One write of the step's holder, fenced by the read (lib/store/lease.ts); throws StepTakenOver when the step is no longer this run's. */
async function writeStep(
  db: Firestore,
  plan: (state: ReturnType<typeof schemaFromStored> | null) => DocumentData | null,
  version: number,
): Promise<void> {
  const ours = await writeIfOurs(
    schemaRef(db),
    (snap) => {
      const update = plan(schemaFromStored(snap.data()!));
      return update ? { update } : null;
    },
    { action: `recording migration ${version}` },
  );
  if (!ours) throw new StepTakenOver(version);
}

export type MigrationDryRun = {
  /** The store's version, and the code's. */
  from: number;
  code: number;
  /** Each migration after the store's version, with what it would change. */
  pending: AppliedMigration[];
};

/**
 * `scout migrate --dry-run`: what `scout migrate` would change, writing nothing — no lease, no
 * checkpoint, no schema version. Each pending migration counts its writes from the start, as if
 * the ones before it had run (a count for a later step may include what an earlier one fixes).
 */
export async function dryRunMigrations(
  db: Firestore,
  input: { now: Date; digestHourUtc: number; migrations?: readonly Migration[] },
): Promise<MigrationDryRun> {
  const migrations = input.migrations ?? MIGRATIONS;
  const from = (await readSchema(db))?.version ?? 0;
  const pending: AppliedMigration[] = [];
  for (const migration of migrations.slice(from)) {
    const outcome = await migration.apply({
      db,
      dryRun: true,
      now: input.now,
      digestHourUtc: input.digestHourUtc,
      resumeAfter: null,
      checkpoint: async () => {},
    });
    pending.push({ version: migration.version, name: migration.name, ...outcome });
  }
  return { from, code: migrations.length, pending };
}
