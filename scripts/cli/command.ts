import type { Firestore } from 'firebase-admin/firestore';
import type { AppDeps } from '../../lib/wiring/app-deps';

/** One line of operator output, without its newline. */
export type Out = (line: string) => void;

/**
 * What every command gets: the store, the run's clock, the deployment's DIGEST_HOUR_UTC and
 * somewhere to print; and, for commands that run the cycle itself, everything the endpoint has
 * (built on first use from the full configuration, so the other commands need only the store's
 * variables).
 */
export type CommandContext = { db: Firestore; now: Date; digestHourUtc: number; out: Out; appDeps: () => AppDeps };

/** The outcome of reading a command's argv: arguments to run with, a request for help, or a usage error. */
export type Parsed<A> = { kind: 'args'; args: A } | { kind: 'help' } | { kind: 'invalid'; message: string };

/** Exit codes: 0 done, 1 done with problems (or refused), 2 not run because it was called wrong. */
export const EXIT = { ok: 0, problems: 1, usage: 2 } as const;

/**
 * A command as the dispatcher sees it. `prepare` reads argv without touching the store, so
 * `--help` and usage errors work without configuration and can never write anything.
 */
export type CliCommand = {
  name: string;
  summary: string;
  usage: string;
  prepare(argv: string[]): Parsed<(ctx: CommandContext) => Promise<number>>;
};

export function defineCommand<A>(spec: {
  name: string;
  summary: string;
  usage: string;
  parse: (argv: string[]) => Parsed<A>;
  run: (ctx: CommandContext, args: A) => Promise<number>;
}): CliCommand {
  return {
    name: spec.name,
    summary: spec.summary,
    usage: spec.usage,
    prepare(argv) {
      const parsed = spec.parse(argv);
      if (parsed.kind !== 'args') return parsed;
      return { kind: 'args', args: (ctx) => spec.run(ctx, parsed.args) };
    },
  };
}
