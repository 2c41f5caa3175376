import type { Firestore } from 'firebase-admin/firestore';
import { ConfigError } from '../../lib/runtime/config';
import type { AppDeps } from '../../lib/wiring/app-deps';
import { EXIT, type CliCommand, type Out } from './command';
import { usersAddCommand } from './users-add';
import { usersImportCommand } from './users-import';
import { usersListCommand } from './users-list';
import { usersMigrateMinPayCommand } from './users-migrate-min-pay';
import { usersMigrateQueriesCommand } from './users-migrate-queries';
import { migrateCommand } from './migrate';
import { migrateLedgerCommand } from './migrate-ledger';
import { pruneCommand } from './prune';
import { resendDigestCommand } from './resend-digest';
import { scanCommand } from './scan';
import { statusCommand } from './status';
import { usersPauseCommand, usersResumeCommand } from './users-status';
import { telegramConnectCommand } from './telegram-connect';

/** Command groups: `scout <group> <command> [args]`. */
const groups: Record<string, { summary: string; commands: CliCommand[] }> = {
  users: {
    summary: 'manage subscribers',
    commands: [
      usersAddCommand,
      usersImportCommand,
      usersListCommand,
      usersPauseCommand,
      usersResumeCommand,
      usersMigrateMinPayCommand,
      usersMigrateQueriesCommand,
    ],
  },
  telegram: { summary: "Scout's Telegram bot", commands: [telegramConnectCommand] },
};

/** Commands with no group: `scout <command> [args]`. */
const standalone: CliCommand[] = [scanCommand, statusCommand, migrateCommand, resendDigestCommand, pruneCommand, migrateLedgerCommand];

export type CliDeps = {
  out: Out;
  /** Usage errors and failures; the commands' own report goes to `out`. */
  err: Out;
  /** Opens the store. Called only once argv is valid, so help and usage errors need no configuration. */
  openDb: () => Firestore;
  /** DIGEST_HOUR_UTC from the environment (default 8); read with the store's variables. */
  digestHourUtc: () => number;
  /** The endpoint's dependencies, from the full configuration; only `scan` asks for them. */
  appDeps: () => AppDeps;
  now: () => Date;
};

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h' || arg === 'help';

function topUsage(): string {
  const lines = [
    ...standalone.map((c) => [c.name, c.summary] as const),
    ...Object.entries(groups).flatMap(([group, { commands }]) => commands.map((c) => [`${group} ${c.name}`, c.summary] as const)),
  ];
  const width = Math.max(...lines.map(([name]) => name.length));
  return [
    'Usage: scout <command> [options]',
    '',
    "Scout's operator tools. The store comes from the environment: FIREBASE_PROJECT_ID, plus",
    'FIRESTORE_EMULATOR_HOST (local emulator) or FIREBASE_SERVICE_ACCOUNT (production: the key JSON,',
    "or platform for the platform's own Google credentials).",
    '',
    'Commands:',
    ...lines.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
    '',
    'Run `scout <command> --help` for its arguments, e.g. `scout users add --help`.',
  ].join('\n');
}

function groupUsage(group: string): string {
  const { summary, commands } = groups[group];
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `Usage: scout ${group} <command> [options]`,
    '',
    `${summary[0].toUpperCase()}${summary.slice(1)}.`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Run \`scout ${group} <command> --help\` for its arguments.`,
  ].join('\n');
}

const print = (write: Out, text: string) => text.split('\n').forEach((line) => write(line));

/**
 * Routes argv to a command, and maps what happens to an exit code: 0 done, 1 done with problems
 * or failed, 2 not run (unknown command, bad arguments, missing configuration) with nothing written.
 */
export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  const [group, name, ...rest] = argv;
  if (group === undefined || isHelp(group)) {
    print(group ? deps.out : deps.err, topUsage());
    return group ? EXIT.ok : EXIT.usage;
  }
  const single = standalone.find((c) => c.name === group);
  if (single) return runCommand(single, group, argv.slice(1), deps);
  if (!Object.hasOwn(groups, group)) {
    deps.err(`scout: unknown command "${group}"`);
    print(deps.err, topUsage());
    return EXIT.usage;
  }
  if (name === undefined || isHelp(name)) {
    print(name ? deps.out : deps.err, groupUsage(group));
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = groups[group].commands.find((c) => c.name === name);
  if (!command) {
    deps.err(`scout: unknown command "${group} ${name}"`);
    print(deps.err, groupUsage(group));
    return EXIT.usage;
  }

  return runCommand(command, `${group} ${name}`, rest, deps);
}

async function runCommand(command: CliCommand, path: string, rest: string[], deps: CliDeps): Promise<number> {
  const label = `scout ${path}`;
  const parsed = command.prepare(rest);
  if (parsed.kind === 'help') {
    print(deps.out, command.usage);
    return EXIT.ok;
  }
  if (parsed.kind === 'invalid') {
    deps.err(`${label}: ${parsed.message}`);
    deps.err(`Run \`${label} --help\` for usage.`);
    return EXIT.usage;
  }

  let db: Firestore;
  let digestHourUtc: number;
  try {
    db = deps.openDb();
    digestHourUtc = deps.digestHourUtc();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    print(deps.err, `${label}: ${error.message}`);
    return EXIT.usage;
  }
  try {
    return await parsed.args({ db, now: deps.now(), digestHourUtc, out: deps.out, appDeps: deps.appDeps });
  } catch (error) {
    deps.err(`${label} failed: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.problems;
  }
}
