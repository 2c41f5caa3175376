import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { applyMigrations } from '../../lib/ledger/migrations/apply-migrations';
import { MIGRATIONS } from '../../lib/ledger/migrations/migrations';
import { schemaNotice } from '../../lib/ledger/migrations/schema-version';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { expectPositionals, invalid, readArgv } from './cli-args';

const usage = `Usage: scout migrate

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
  -h, --help  show this help`;

export function parseMigrateArgs(argv: string[]): Parsed<Record<string, never>> {
  const read = readArgv(() =>
    parseArgs({ args: argv, allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' } } }),
  );
  if (!read.ok) return invalid(read.message);
  if (read.value.values.help) return { kind: 'help' };
  const positionalError = expectPositionals(read.value.positionals, []);
  return positionalError ? invalid(positionalError) : { kind: 'args', args: {} };
}

const documents = (n: number) => `${n} document${n === 1 ? '' : 's'}`;

export async function migrate(ctx: CommandContext): Promise<number> {
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
