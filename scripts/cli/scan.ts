import { parseArgs } from 'node:util';
import type { CyclePhase } from '../../lib/ledger/runs';
import { runCycle } from '../../lib/cycle/run-cycle';
import { MAX_SHARDS, type Shard } from '../../lib/runtime/shard';
import { quotaNoticeText } from '../../lib/ops/provider-quota';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { expectPositionals, invalid, readArgv } from './cli-args';

export type ScanArgs = { dryRun: boolean; now: Date | null; shard?: Shard };

const usage = `Usage: scout scan [--dry-run] [--now <ISO time>] [--shard <k>/<n>]

Runs one cycle through the same code as GET /api/cron (lock, feeds, match, claim, digests,
dispatch), printing each phase as it finishes and the run's stats at the end. Needs the full
configuration (.env.example), not only the store's.

Options:
  --dry-run       report what would be sent; write nothing
  --now <ISO>     the run's clock, honoured only with ALLOW_CLOCK_OVERRIDE=true (replays, tests)
  --shard <k>/<n> only shard k of n (0-based), as ?shard=k&shards=n: its own lock and run record
  -h, --help      show this help`;

export function parseScanArgs(argv: string[]): Parsed<ScanArgs> {
  const read = readArgv(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        'dry-run': { type: 'boolean' },
        now: { type: 'string' },
        shard: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (!read.ok) return invalid(read.message);
  const { values, positionals } = read.value;
  if (values.help) return { kind: 'help' };
  const positionalError = expectPositionals(positionals, []);
  if (positionalError) return invalid(positionalError);
  const now = values.now === undefined ? null : new Date(values.now);
  if (now && Number.isNaN(now.getTime())) return invalid('--now must be an ISO time, e.g. 2026-11-30T08:05:00Z');
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  if (shard === null) return invalid(`--shard must be <k>/<n> with 0 ≤ k < n ≤ ${MAX_SHARDS}, e.g. 0/4`);
  return { kind: 'args', args: { dryRun: values['dry-run'] ?? false, now, ...(shard ? { shard } : {}) } };
}

function parseShard(value: string): Shard | null {
  const m = /^(\d{1,3})\/(\d{1,3})$/.exec(value);
  if (!m) return null;
  const [index, count] = [Number(m[1]), Number(m[2])];
  return index < count && count <= MAX_SHARDS ? { index, count } : null;
}

export async function scan(ctx: CommandContext, args: ScanArgs): Promise<number> {
  const deps = ctx.appDeps();
  if (args.now && !deps.config.ALLOW_CLOCK_OVERRIDE) {
    ctx.out('not run: --now is honoured only with ALLOW_CLOCK_OVERRIDE=true');
    return EXIT.usage;
  }
  const trace = async <T>(phase: CyclePhase, step: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    ctx.out(`${phase}…`);
    const result = await step();
    ctx.out(`${phase} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return result;
  };
  const result = await runCycle(
    { ...deps, trace },
    {
      now: args.now ?? undefined,
      dryRun: args.dryRun,
      trigger: 'cli',
      shard: args.shard,
    },
  );
  if (result.kind === 'skipped') {
    ctx.out(`skipped: ${result.skipped} (lock held by ${result.lockOwner ?? 'another run'} until ${result.lockExpiresAt ?? '?'})`);
    return EXIT.ok;
  }
  if (result.kind === 'dry-run') {
    const w = result.wouldSend;
    ctx.out(`dry run ${result.runId}: ${result.jobsNew} new postings, ${result.matches} matches`);
    ctx.out(
      `would send ${w.alerts} alerts (${w.alertItems} postings), queue ${w.queued} for digests, send ${w.digests} digests; ${w.outboxPending} emails already pending`,
    );
    return EXIT.ok;
  }
  ctx.out(
    `run ${result.runId}: ${result.jobsNew} new postings of ${result.jobsFetched}, ${result.users} subscribers, ${result.matches} matches`,
  );
  ctx.out(
    `sent ${result.instantEmails} alerts and ${result.digests} digests (${result.providerRequests} provider requests); ${result.queued} queued for digests`,
  );
  ctx.out(
    `${result.failures} failures${result.partial ? '; partial: the next run goes on' : ''}; ${(result.durationMs / 1000).toFixed(1)} s`,
  );
  if (result.quota) ctx.out(`${quotaNoticeText(result.quota)} (${result.quota.error})`);
  for (const feed of result.feeds.filter((f) => f.status === 'error')) ctx.out(`feed ${feed.source}: ${feed.error}`);
  return result.failures > 0 || result.partial ? EXIT.problems : EXIT.ok;
}

export const scanCommand = defineCommand({
  name: 'scan',
  summary: 'run one cycle now, as the endpoint does, with progress',
  usage,
  parse: parseScanArgs,
  run: scan,
});
