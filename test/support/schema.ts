import type { Firestore } from 'firebase-admin/firestore';
import { applyMigrations, type MigrateReport } from '../../lib/ledger/migrations/apply-migrations';
import { schemaRef } from '../../lib/ledger/migrations/schema-version';

/** The store as code of schema version `version` left it: what a test of an upgrade starts from. */
export async function storeAtSchemaVersion(db: Firestore, version: number): Promise<void> {
  await schemaRef(db).set({ version, origin: 'migrated', applying: null, applied: [] });
}

/** `scout migrate` as an operator runs it after the deploy, with the deployment's DIGEST_HOUR_UTC (8 unless given). */
export function migrateStore(db: Firestore, input: { now: Date; digestHourUtc?: number; owner?: string }): Promise<MigrateReport> {
  return applyMigrations(db, {
    owner: input.owner ?? 'test-migrate',
    clock: () => input.now,
    digestHourUtc: input.digestHourUtc ?? 8,
  });
}
