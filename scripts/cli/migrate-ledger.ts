import { migrateLedger, MIGRATION_CURSOR, MIGRATION_BATCH_SIZE, type MigrationProgress } from '../../lib/ledger/migrate-ledger';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { MAX_MIGRATION_BATCH_SIZE, parseMigrationArgs, type MigrationArgs } from './cli-args';

export type MigrateLedgerArgs = MigrationArgs;

const usage = `Usage: scout migrate-ledger [--dry-run] [--batch-size N]

Turns the first ledger's day documents, deliveries/{uid}_{day}, into one document per
subscriber and posting, deliveries/{uid}_{jobId}, keeping every status, score, reason and email
key; each day document is deleted in the same batch as its pairs are created. A pair that already has
its document is left as it is. Safe to stop and run again: it continues after the last day document it
finished (cursors/${MIGRATION_CURSOR}), and once done a run changes nothing. Exit 1 when a
document could not be read as a day document (it is left in place and named). Run it right after
deploying the per-pair code, with the scheduler paused: until its day document is migrated, a delivery
is invisible to the new code.

Options:
  --dry-run        count what it would migrate; write nothing
  --batch-size <n>  ledger day documents read per query (default ${MIGRATION_BATCH_SIZE}, at most ${MAX_MIGRATION_BATCH_SIZE})
  -h, --help       show this help`;

export const parseMigrateLedgerArgs = (argv: string[]): Parsed<MigrateLedgerArgs> => parseMigrationArgs(argv, MIGRATION_BATCH_SIZE);

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const counts = (p: MigrationProgress, dryRun: boolean) =>
  `${plural(p.dayDocuments, 'day document')}, ${plural(p.deliveries, 'delivery document')} ${dryRun ? 'to create' : 'created'}, ${p.skippedExisting} already there`;

export async function runMigrateLedger(ctx: CommandContext, args: MigrateLedgerArgs): Promise<number> {
  const report = await migrateLedger(ctx.db, {
    dryRun: args.dryRun,
    batchSize: args.batchSize,
    now: ctx.now,
    digestHourUtc: ctx.digestHourUtc,
    onProgress: (p) => ctx.out(`${args.dryRun ? 'counted' : 'migrated'} so far: ${counts(p, args.dryRun)}`),
  });
  if (report.resumedAfter) ctx.out(`resumed after deliveries/${report.resumedAfter}, where the last run stopped`);
  if (args.dryRun) ctx.out(`dry run, nothing written: would migrate ${counts(report, true)}`);
  else if (report.dayDocuments === 0) ctx.out('nothing to migrate: no day document left');
  else ctx.out(`done: ${counts(report, false)}`);
  if (report.unreadable.length === 0) return EXIT.ok;
  for (const id of report.unreadable) ctx.out(`left in place, not a readable day document (no uid or no deliveries map): deliveries/${id}`);
  return EXIT.problems;
}

export const migrateLedgerCommand = defineCommand({
  name: 'migrate-ledger',
  summary: 'turn day documents into per-pair documents (once, after upgrading)',
  usage,
  parse: parseMigrateLedgerArgs,
  run: runMigrateLedger,
});
