import { MIGRATION_CURSOR, migrateLedger } from '../migrate-ledger';
import { MigrationBlocked, type Migration } from './migration';

/**
 * The first ledger kept one document per subscriber and posting day, `deliveries/{uid}_{day}`, its
 * deliveries in a map; the current one keeps one per pair (migrate-ledger.ts says how, and why it
 * is safe to stop and run again). It resumes from its own cursor (`cursors/migrate-ledger`), so
 * its checkpoints only keep the step leased. A document that does not read as a day document is
 * left in place and named: the step is not recorded as applied until it is fixed or deleted.
 */
export const perPairLedger: Migration = {
  version: 1,
  name: 'per-pair-ledger',
  changes: 'turns each day document deliveries/{uid}_{day} into per-pair documents deliveries/{uid}_{jobId}, and deletes it',
  why: 'the current code reads and claims per-pair documents only: a delivery still in a day document is invisible to it',
  async apply(ctx) {
    const report = await migrateLedger(ctx.db, {
      dryRun: ctx.dryRun,
      now: ctx.now,
      digestHourUtc: ctx.digestHourUtc,
      onProgress: () => ctx.checkpoint(null),
    });
    if (report.unreadable.length > 0)
      throw new MigrationBlocked(
        `left in place, not readable as day documents (no uid or no deliveries map): ${report.unreadable.map((id) => `deliveries/${id}`).join(', ')}; fix or delete them, then run it again`,
      );
    const note = report.resumedAfter ? `resumed after deliveries/${report.resumedAfter} (cursors/${MIGRATION_CURSOR})` : undefined;
    return { changed: report.deliveries, note };
  },
};
