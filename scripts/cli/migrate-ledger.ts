import { parseArgs } from 'node:util';
import { migrateLedger, MIGRATION_CURSOR, MIGRATION_PAGE_SIZE, type MigrationProgress } from '../../lib/ledger/migrate-ledger';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { expectPositionals, invalid, readArgv } from './cli-args';

export type MigrateLedgerArgs = { dryRun: boolean; pageSize: number };

const MAX_PAGE_SIZE = 500;

const usage = `Usage: scout migrate-ledger [--dry-run] [--page-size N]

Turns the first ledger's delivery pages, deliveries/{uid}_{day}, into one document per
subscriber and posting, deliveries/{uid}_{jobId}, keeping every status, score, reason and email
key; each page is deleted in the same batch as its pairs are created. A pair that already has
its document is left as it is. Safe to stop and run again: it continues after the last page it
finished (cursors/${MIGRATION_CURSOR}), and once done a run changes nothing. Exit 1 when a
document could not be read as a page (it is left in place and named). Run it right after
deploying the per-pair code, with the scheduler paused: until its page is migrated, a delivery
is invisible to the new code.

Options:
  --dry-run        count what it would migrate; write nothing
  --page-size <n>  ledger pages read per query (default ${MIGRATION_PAGE_SIZE}, at most ${MAX_PAGE_SIZE})
  -h, --help       show this help`;

export function parseMigrateLedgerArgs(argv: string[]): Parsed<MigrateLedgerArgs> {
  const read = readArgv(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { 'dry-run': { type: 'boolean' }, 'page-size': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }),
  );
  if (!read.ok) return invalid(read.message);
  const { values, positionals } = read.value;
  if (values.help) return { kind: 'help' };
  const positionalError = expectPositionals(positionals, []);
  if (positionalError) return invalid(positionalError);
  const pageSize = values['page-size'] === undefined ? MIGRATION_PAGE_SIZE : Number(values['page-size']);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
    return invalid(`--page-size must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  return { kind: 'args', args: { dryRun: values['dry-run'] ?? false, pageSize } };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const counts = (p: MigrationProgress, dryRun: boolean) =>
  `${plural(p.pages, 'page')}, ${plural(p.deliveries, 'delivery document')} ${dryRun ? 'to create' : 'created'}, ${p.skippedExisting} already there`;

export async function runMigrateLedger(ctx: CommandContext, args: MigrateLedgerArgs): Promise<number> {
  const report = await migrateLedger(ctx.db, {
    dryRun: args.dryRun,
    pageSize: args.pageSize,
    now: ctx.now,
    onProgress: (p) => ctx.out(`${args.dryRun ? 'counted' : 'migrated'} so far: ${counts(p, args.dryRun)}`),
  });
  if (report.resumedAfter) ctx.out(`resumed after deliveries/${report.resumedAfter}, where the last run stopped`);
  if (args.dryRun) ctx.out(`dry run, nothing written: would migrate ${counts(report, true)}`);
  else if (report.pages === 0) ctx.out('nothing to migrate: no delivery page left');
  else ctx.out(`done: ${counts(report, false)}`);
  if (report.unreadable.length === 0) return EXIT.ok;
  for (const id of report.unreadable) ctx.out(`left in place, not a readable page (no uid or no deliveries map): deliveries/${id}`);
  return EXIT.problems;
}

export const migrateLedgerCommand = defineCommand({
  name: 'migrate-ledger',
  summary: 'turn delivery pages into per-pair documents (once, after upgrading)',
  usage,
  parse: parseMigrateLedgerArgs,
  run: runMigrateLedger,
});
