import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { applyMigrations, dryRunMigrations } from '../../lib/ledger/migrations/apply-migrations';
import { MIGRATIONS } from '../../lib/ledger/migrations/migrations';
import { schemaNotice } from '../../lib/ledger/migrations/schema-version';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { expectPositionals, invalid, readArgv } from './cli-args';

const usage = `Usage: scout migrate [--dry-run]

Brings the store to this code's schema version: applies, in order, each numbered migration
after the version stored in schema/current, and records each one as it ends. Until then the
cycle refuses to run on the store (its runs fail, saying so). Run it after each deploy, with the
scheduler paused, before resuming it; a fresh store needs nothing (its first run stamps it).
Safe to stop and run again: a step resumes from its last checkpoint, and a store already current
changes nothing. A second \`scout migrate\` started meanwhile stops at the step the first one
holds. Exit 1 when it stopped before the end (a step failed, or another run holds one).

Migrations:
${MIGRATIONS.map((m) => `  ${m.version}. ${m.name}: ${m.changes}`).join('\n')}

Options:
      --dry-run  say what each pending migration would change, and write nothing
  -h, --help     show this help`;

export type MigrateArgs = { dryRun: boolean };

export function parseMigrateArgs(argv: string[]): Parsed<MigrateArgs> {
  const read = readArgv(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { help: { type: 'boolean', short: 'h' }, 'dry-run': { type: 'boolean' } },
    }),
  );
  if (!read.ok) return invalid(read.message);
  if (read.value.values.help) return { kind: 'help' };
  const positionalError = expectPositionals(read.value.positionals, []);
  return positionalError ? invalid(positionalError) : { kind: 'args', args: { dryRun: read.value.values['dry-run'] ?? false } };
}

const documents = (n: number) => `${n} document${n === 1 ? '' : 's'}`;

/** What `scout migrate` would change: one line per pending migration, nothing written. */
async function dryRun(ctx: CommandContext): Promise<number> {
  const report = await dryRunMigrations(ctx.db, { now: ctx.now, digestHourUtc: ctx.digestHourUtc });
  if (report.pending.length === 0) {
    ctx.out(`nothing to do: the store is at schema version ${report.from}, as this code (dry run: nothing written)`);
    return EXIT.ok;
  }
  for (const step of report.pending)
    ctx.out(`would apply ${step.version} ${step.name}: ${documents(step.changed)} to change${step.note ? ` (${step.note})` : ''}`);
  ctx.out(`dry run: nothing written; the store stays at schema version ${report.from} of ${report.code}`);
  return EXIT.ok;
}

export async function migrate(ctx: CommandContext, args: MigrateArgs = { dryRun: false }): Promise<number> {
  if (args.dryRun) return dryRun(ctx);
  const started = Date.now();
  // The command's clock moves with real time from its start, so a long step's lease is renewed on time.
  const clock = () => new Date(ctx.now.getTime() + (Date.now() - started));
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const report = await applyMigrations(ctx.db, {
    owner,
    clock,
    digestHourUtc: ctx.digestHourUtc,
    onStep: (m) => ctx.out(`applying ${m.version} ${m.name}: ${m.changes}`),
  });
  for (const step of report.applied)
    ctx.out(`applied ${step.version} ${step.name}: ${documents(step.changed)} changed${step.note ? ` (${step.note})` : ''}`);
  if (report.busy) {
    const { version, name, owner: holder, leaseUntil } = report.busy;
    ctx.out(
      `migration ${version} ${name} is being applied by another scout migrate (${holder}) until ${leaseUntil.toISOString()}: run again after it`,
    );
    return EXIT.problems;
  }
  const notice = schemaNotice(report.to, report.code);
  if (notice) {
    ctx.out(notice);
    return EXIT.problems;
  }
  ctx.out(
    report.applied.length === 0
      ? `nothing to do: the store is at schema version ${report.to}, as this code`
      : `done: the store is at schema version ${report.to}, as this code`,
  );
  return EXIT.ok;
}

export const migrateCommand = defineCommand({
  name: 'migrate',
  summary: "bring the store to this code's schema version (after each deploy)",
  usage,
  parse: parseMigrateArgs,
  run: migrate,
});
