import { fallbacksByReason } from '../../lib/ops/ai-verdicts-state';
import { channelStatusText } from '../../lib/ops/channel-status';
import { digestHourCoverageText } from '../../lib/ops/digest-hour-coverage';
import { matchIndexText } from '../../lib/ops/match-index-status';
import { quotaNoticeText } from '../../lib/ops/provider-quota';
import { readOpsStatus, type OpsStatus } from '../../lib/ops/read-status';
import { schemaText } from '../../lib/ledger/migrations/schema-view';
import { minuteUtc, sourceName, spanInWords, type SourceHealthView } from '../../lib/ops/source-health-view';
import { parseArgs } from 'node:util';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { expectPositionals, invalid, readArgv } from './cli-args';
import { formatTable } from './format-table';

export type StatusArgs = { limit: number; json?: boolean };

const usage = `Usage: scout status [--limit N] [--json]

What is due, what failed, what ran: the store's schema version against this code's (runs
refuse while it is behind: \`scout migrate\`), the outbox by state, queued deliveries due in
a digest now, whether the last day's runs served every subscriber's local digest hour
(DIGEST_HOUR_UTC from the environment, default 8, for those who chose none; per-hour schedules
need a scheduler that calls at least hourly), the match index (built or not, its drift against
the active subscribers, its fullest shard, the last repair sweep), postings still unmatched an hour after they were stored, whether the mail
provider's quota stops sending (and when it resumes), what the AI verdict stage used today and
in the latest runs (and whether its budget made keywords decide), the channels by kind and state
(subscribers with one or more in it), their messages waiting and what the latest runs sent and
failed per kind, the channels recently disabled as gone, the newest failed or dead
emails with their last error, the newest runs, who holds the scan locks (one per shard), and
each source's health in one line (ok, failing, disabled, silent) with what to do about it.
Exit 1 when any email is failed or dead, any source is disabled or the store is behind the
code's schema version, so a script can alert on it.

Options:
  --limit <n>  failures and runs listed (default 5, at most 50)
  --json       the same as one line of JSON (times as ISO strings), for a script; same exit code
  -h, --help   show this help`;

const MAX_LIMIT = 50;

export function parseStatusArgs(argv: string[]): Parsed<StatusArgs> {
  const read = readArgv(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { limit: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }),
  );
  if (!read.ok) return invalid(read.message);
  const { values, positionals } = read.value;
  if (values.help) return { kind: 'help' };
  const positionalError = expectPositionals(positionals, []);
  if (positionalError) return invalid(positionalError);
  const limit = values.limit === undefined ? 5 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) return invalid(`--limit must be a whole number from 1 to ${MAX_LIMIT}`);
  return { kind: 'args', args: { limit, json: values.json ?? false } };
}

/** 1 when an email is failed or dead, a source is disabled or the store is behind the code's schema: a script alerts on it. */
function exitCode(s: OpsStatus): number {
  const disabled = s.sources.some((source) => source.state === 'disabled');
  const behind = s.schema.stored !== null && s.schema.stored < s.schema.code;
  return s.outbox.failed + s.outbox.dead > 0 || disabled || behind ? EXIT.problems : EXIT.ok;
}

export async function status(ctx: CommandContext, args: StatusArgs): Promise<number> {
  const s = await readOpsStatus(ctx.db, { now: ctx.now, limit: args.limit, digestHourUtc: ctx.digestHourUtc });
  if (args.json) {
    ctx.out(JSON.stringify(s));
    return exitCode(s);
  }
  const { held, pending, sending, failed, dead } = s.outbox;
  // Held rows exist only while signup emails wait for a later hour's allowance: named when there are some.
  const heldNote = held > 0 ? `, ${held} held for a later hour` : '';
  ctx.out(schemaText(s.schema));
  ctx.out(`outbox: ${pending} pending, ${sending} sending, ${failed} failed, ${dead} dead${heldNote}`);
  ctx.out(`digests: ${s.digestItemsDue} queued item${s.digestItemsDue === 1 ? '' : 's'} due now`);
  ctx.out(digestHourCoverageText(s.digestHours));
  matchIndexText(s.matchIndex).forEach((line) => ctx.out(line));
  ctx.out(
    s.postingsWaiting === 0
      ? 'matching: no posting waits over an hour'
      : `matching: ${s.postingsWaiting} posting${s.postingsWaiting === 1 ? '' : 's'} stored over an hour ago still unmatched (runs failing or cut short, or a shard not called)`,
  );
  ctx.out(
    s.quota
      ? `${quotaNoticeText(s.quota)} (${s.quota.period} quota, reached ${s.quota.reachedAt.toISOString()} by run ${s.quota.runId}; emails wait as pending, no attempt used)`
      : 'provider: no quota reached in the latest runs',
  );
  aiLines(s.ai).forEach((line) => ctx.out(line));
  channelStatusText(s.channels).forEach((line) => ctx.out(line));
  if (s.locks.length === 0) ctx.out('locks: none taken');
  for (const lock of s.locks)
    ctx.out(
      `lock ${lock.name}: ${lock.held ? 'held' : 'expired, last held'} by ${lock.owner} until ${lock.expiresAt?.toISOString() ?? '?'}`,
    );
  if (s.sources.length === 0) ctx.out('sources: none fetched yet');
  s.sources.forEach((source) => ctx.out(sourceLine(source)));
  ctx.out('');
  if (s.failures.length === 0) ctx.out('no failed or dead emails');
  else
    formatTable(
      ['EMAIL KEY', 'KIND', 'STATUS', 'ATTEMPTS', 'LAST ERROR'],
      s.failures.map((f) => [f.emailKey, f.kind, f.status, String(f.attempts), f.lastError ?? '-']),
    ).forEach((line) => ctx.out(line));
  ctx.out('');
  if (s.runs.length === 0) ctx.out('no runs yet');
  else
    formatTable(
      ['RUN', 'STATUS', 'TRIGGER', 'SHARD', 'STARTED', 'DURATION', 'EMAILS', 'ERRORS'],
      s.runs.map((r) => [
        r.runId,
        r.status,
        r.trigger,
        r.shard ?? '-',
        r.startedAt?.toISOString() ?? '-',
        r.durationMs === null ? '-' : `${(r.durationMs / 1000).toFixed(1)} s`,
        String(r.emails),
        r.errors.join('; ') || '-',
      ]),
    ).forEach((line) => ctx.out(line));
  return exitCode(s);
}

/**
 * One source in one line: its state, the numbers behind it, and what to do when it is not ok, e.g.
 * `source acme [disabled] Greenhouse · acme: last success 2026-11-27 06:00 UTC, 12 failures in a
 * row, last error "HTTP 404", 3.2 postings/day, last new posting 5 days ago — disabled: …`.
 */
export function sourceLine(v: SourceHealthView): string {
  const facts = [
    `last success ${v.lastSuccessAt ? minuteUtc(v.lastSuccessAt) : 'never'}`,
    `${v.consecutiveFailures} failure${v.consecutiveFailures === 1 ? '' : 's'} in a row`,
    ...(v.lastError ? [`last error "${v.lastError}"`] : []),
    `${v.postingsPerDay === null ? '-' : v.postingsPerDay.toFixed(1)} postings/day`,
    `last new posting ${v.sinceLastNewMs === null ? 'never' : `${spanInWords(v.sinceLastNewMs)} ago`}`,
  ];
  return `source ${v.source} [${v.state}] ${sourceName(v)}: ${facts.join(', ')}${v.whatToDo ? ` — ${v.whatToDo}` : ''}`;
}

/**
 * What the AI verdict stage used, from the store alone: the CLI reads no app configuration, so it
 * names the limits (AI_DAILY_TOKEN_BUDGET, AI_MAX_CALLS_PER_RUN) instead of their values.
 */
export function aiLines({ today, recent }: OpsStatus['ai']): string[] {
  const runs = `the latest ${recent.runs} run${recent.runs === 1 ? '' : 's'}`;
  const howToTurnOn = 'it is on where the app has AI_BASE_URL and AI_MODEL; see docs/verdicts.md';
  if (today.calls === 0 && recent.runsWithModel === 0)
    return [
      recent.runs === 0
        ? `ai: no model calls today (${howToTurnOn})`
        : `ai: no model calls today, and the verdict stage was off in ${runs} (${howToTurnOn})`,
    ];
  const fallbacks = fallbacksByReason(recent.fallbacks);
  const lines = [
    `ai: ${today.tokens} tokens in ${today.calls} answered model call${today.calls === 1 ? '' : 's'} today (${today.day} UTC), against the app's AI_DAILY_TOKEN_BUDGET`,
    `ai: ${runs} (${recent.runsWithModel} with the model on): ${recent.calls} calls, ${recent.tokens} tokens, ${recent.judged} judged, ${recent.notAFit} not a fit; ${
      fallbacks.length === 0
        ? 'none decided by keywords alone'
        : `by keywords alone: ${fallbacks.map(([reason, n]) => `${reason} ${n}`).join(', ')}`
    }`,
  ];
  if (recent.runsOverBudget > 0)
    lines.push(
      `ai: budget reached in ${recent.runsOverBudget} of ${runs}: keywords alone decided the rest (AI_MAX_CALLS_PER_RUN for a run, or AI_DAILY_TOKEN_BUDGET until 00:00 UTC)`,
    );
  return lines;
}

export const statusCommand = defineCommand({
  name: 'status',
  summary: 'what is due, what failed, what ran',
  usage,
  parse: parseStatusArgs,
  run: status,
});
