import { parseArgs } from 'node:util';
import { migrateMinPay, MIN_PAY_MIGRATION_BATCH_SIZE } from '../../lib/subscribers/migrate-min-pay';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { expectPositionals, invalid, readArgv } from './cli-args';

export type UsersMigrateMinPayArgs = { dryRun: boolean; batchSize: number };

const MAX_BATCH_SIZE = 500;

const usage = `Usage: scout users migrate-min-pay [--dry-run] [--batch-size N]

Rewrites every subscriber that still holds the old single minimum, minBudget, as minPay: a
minimum fixed price in USD, which is what minBudget was compared with, and deletes minBudget.
Each subscriber's match index entry is kept in step in the same write. Nothing a subscriber
receives changes (unmigrated documents already read so), and profileVersion stays. Safe to stop
and run again: a second run finds nothing and changes nothing.

Options:
  --dry-run          count the subscribers it would rewrite; write nothing
  --batch-size <n>   users/ documents read per query (default ${MIN_PAY_MIGRATION_BATCH_SIZE}, at most ${MAX_BATCH_SIZE})
  -h, --help         show this help`;

export function parseUsersMigrateMinPayArgs(argv: string[]): Parsed<UsersMigrateMinPayArgs> {
  const read = readArgv(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { 'dry-run': { type: 'boolean' }, 'batch-size': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }),
  );
  if (!read.ok) return invalid(read.message);
  const { values, positionals } = read.value;
  if (values.help) return { kind: 'help' };
  const positionalError = expectPositionals(positionals, []);
  if (positionalError) return invalid(positionalError);
  const batchSize = values['batch-size'] === undefined ? MIN_PAY_MIGRATION_BATCH_SIZE : Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE)
    return invalid(`--batch-size must be a whole number from 1 to ${MAX_BATCH_SIZE}`);
  return { kind: 'args', args: { dryRun: values['dry-run'] ?? false, batchSize } };
}

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
