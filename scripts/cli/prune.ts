import { pruneLedger } from '../../lib/ops/prune-ledger';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { parseLimitArgs } from './cli-args';

export type PruneArgs = { limit: number };

const usage = `Usage: scout prune [--limit N]

Deletes ledger documents whose expireAt has passed (jobs, deliveries, emails, runs,
rateLimits), ended ops page sessions (adminSessions) and unconfirmed signups past theirs
(users), at most N per call — for a store without the TTL policy, or to catch up before it
runs. Outbox rows still pending or sending, deliveries still queued for a digest,
and every subscriber who is not pending are kept. Run it again while it says there may be more.

Options:
  --limit <n>  documents examined per call (default 5000, at most 100000)
  -h, --help   show this help`;

export const parsePruneArgs = (argv: string[]): Parsed<PruneArgs> => parseLimitArgs(argv, { fallback: 5_000, max: 100_000 });

export async function prune(ctx: CommandContext, args: PruneArgs): Promise<number> {
  const report = await pruneLedger(ctx.db, { now: ctx.now, limit: args.limit });
  for (const collection of Object.keys(report.deleted)) {
    const kept = report.kept[collection] > 0 ? ` (kept ${report.kept[collection]} still due)` : '';
    ctx.out(`${collection}: deleted ${report.deleted[collection]}${kept}`);
  }
  ctx.out(report.more ? 'there may be more: run it again' : 'nothing else has expired');
  return EXIT.ok;
}

export const pruneCommand = defineCommand({
  name: 'prune',
  summary: 'delete expired ledger documents (stores without TTL)',
  usage,
  parse: parsePruneArgs,
  run: prune,
});
