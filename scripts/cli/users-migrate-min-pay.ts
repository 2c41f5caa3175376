import { migrateMinPay, MIN_PAY_MIGRATION_BATCH_SIZE } from '../../lib/subscribers/migrate-min-pay';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { MAX_MIGRATION_BATCH_SIZE, parseMigrationArgs, type MigrationArgs } from './cli-args';

export type UsersMigrateMinPayArgs = MigrationArgs;

const usage = `Usage: scout users migrate-min-pay [--dry-run] [--batch-size N]

Rewrites every subscriber that still holds the old single minimum, minBudget, as minPay: a
minimum fixed price in USD, which is what minBudget was compared with, and deletes minBudget.
Each subscriber's match index entry is kept in step in the same write. Nothing a subscriber
receives changes (unmigrated documents already read so), and profileVersion stays. Safe to stop
and run again: a second run finds nothing and changes nothing.

Options:
  --dry-run          count the subscribers it would rewrite; write nothing
  --batch-size <n>   users/ documents read per query (default ${MIN_PAY_MIGRATION_BATCH_SIZE}, at most ${MAX_MIGRATION_BATCH_SIZE})
  -h, --help         show this help`;

export const parseUsersMigrateMinPayArgs = (argv: string[]): Parsed<UsersMigrateMinPayArgs> =>
  parseMigrationArgs(argv, MIN_PAY_MIGRATION_BATCH_SIZE);

const subscribers = (n: number) => `${n} subscriber${n === 1 ? '' : 's'}`;

export async function runUsersMigrateMinPay(ctx: CommandContext, args: UsersMigrateMinPayArgs): Promise<number> {
  const report = await migrateMinPay(ctx.db, {
    dryRun: args.dryRun,
    batchSize: args.batchSize,
    onProgress: (p) => ctx.out(`so far: ${subscribers(p.changed)} ${args.dryRun ? 'to rewrite' : 'rewritten'}`),
  });
  if (args.dryRun) ctx.out(`dry run, nothing written: would rewrite ${subscribers(report.changed)}`);
  else ctx.out(`done: ${report.changed} changed (${subscribers(report.found)} held minBudget)`);
  return EXIT.ok;
}

export const usersMigrateMinPayCommand = defineCommand({
  name: 'migrate-min-pay',
  summary: 'turn the old minBudget into per-kind minimums (once, after upgrading)',
  usage,
  parse: parseUsersMigrateMinPayArgs,
  run: runUsersMigrateMinPay,
});
