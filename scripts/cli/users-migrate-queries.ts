import { migrateQueries, QUERY_MIGRATION_BATCH_SIZE } from '../../lib/subscribers/migrate-queries';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { MAX_MIGRATION_BATCH_SIZE, parseMigrationArgs, type MigrationArgs } from './cli-args';

export type UsersMigrateQueriesArgs = MigrationArgs;

const usage = `Usage: scout users migrate-queries [--dry-run] [--batch-size N]

Gives every subscriber stored without a search query the query their keywords and excludes
already are: "react OR node.js -wordpress" (docs/query.md). Nothing a subscriber receives
changes: such a document is already matched as its keyword lists, and the query written is read
as exactly those lists. Each subscriber's match index entry, profileVersion and updatedAt stay.
Safe to stop and run again: a second run changes nothing. It reads every subscriber once.

Options:
  --dry-run          count the subscribers it would give a query; write nothing
  --batch-size <n>   users/ documents read per query (default ${QUERY_MIGRATION_BATCH_SIZE}, at most ${MAX_MIGRATION_BATCH_SIZE})
  -h, --help         show this help`;

export const parseUsersMigrateQueriesArgs = (argv: string[]): Parsed<UsersMigrateQueriesArgs> =>
  parseMigrationArgs(argv, QUERY_MIGRATION_BATCH_SIZE);

const subscribers = (n: number) => `${n} subscriber${n === 1 ? '' : 's'}`;

export async function runUsersMigrateQueries(ctx: CommandContext, args: UsersMigrateQueriesArgs): Promise<number> {
  const report = await migrateQueries(ctx.db, {
    dryRun: args.dryRun,
    batchSize: args.batchSize,
    onProgress: (p) => ctx.out(`so far: ${subscribers(p.read)} read, ${p.changed} ${args.dryRun ? 'to migrate' : 'migrated'}`),
  });
  const without = report.withoutKeywords > 0 ? `; ${subscribers(report.withoutKeywords)} without keywords left as they are` : '';
  if (args.dryRun) ctx.out(`dry run, nothing written: would give ${subscribers(report.changed)} a query (${report.read} read${without})`);
  else ctx.out(`done: ${report.changed} changed (${subscribers(report.read)} read${without})`);
  return EXIT.ok;
}

export const usersMigrateQueriesCommand = defineCommand({
  name: 'migrate-queries',
  summary: 'store each keyword subscription as its search query (once, after upgrading)',
  usage,
  parse: parseUsersMigrateQueriesArgs,
  run: runUsersMigrateQueries,
});
