import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { DELIVERY_MODES, normaliseEmail, subscriberInputSchema } from '../../lib/subscribers/subscriber';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { expectPositionals, invalid, readArgv, splitList } from './cli-args';

/** A subscriber as the schema leaves it: lowercased keywords, defaults filled in. */
export type UsersAddArgs = { subscriber: z.output<typeof subscriberInputSchema> };

const usage = `Usage: scout users add <email> --keywords <list> [--excludes <list>] [--min-budget <amount>] [--mode instant|daily|weekly|feed] [--timezone <zone>] [--digest-hour <0-23>] [--weekdays <list>] [--weekly-day <day>] [--about <text>]

Adds a subscriber as active (confirmed), or updates the one with that email (in any case).
Someone who unsubscribed stays unsubscribed: opt-outs win.

Options:
  --keywords <list>      required; comma-separated, e.g. "react, next.js"
  --excludes <list>      postings mentioning any of these are never sent, e.g. "wordpress"
  --min-budget <amount>  skip fixed-price postings below this amount, e.g. 500
  --mode <mode>          instant (default): an email per cycle; daily: one digest a day; weekly: one a week; feed: no email, the private feed only
  --timezone <zone>      IANA time zone the digest hour is read in, e.g. Europe/Berlin (default UTC)
  --digest-hour <0-23>   local hour of the digest (default DIGEST_HOUR_UTC)
  --weekdays <list>      days a daily digest may go out, e.g. "mon,tue,wed,thu,fri" (default every day)
  --weekly-day <day>     day of the weekly digest, e.g. fri (default mon)
  --about <text>         what they want, in their words (up to 500 characters); left as it is when not given
  -h, --help             show this help`;

/** The argument each field of the subscriber schema comes from, for error messages. */
const argumentOf: Record<string, string> = {
  email: '<email>',
  keywords: '--keywords',
  excludes: '--excludes',
  minBudget: '--min-budget',
  mode: '--mode',
  about: '--about',
  timezone: '--timezone',
  digestHour: '--digest-hour',
  weekdays: '--weekdays',
  weeklyDay: '--weekly-day',
};

export function parseUsersAddArgs(argv: string[]): Parsed<UsersAddArgs> {
  const read = readArgv(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        keywords: { type: 'string' },
        excludes: { type: 'string' },
        'min-budget': { type: 'string' },
        mode: { type: 'string' },
        about: { type: 'string' },
        timezone: { type: 'string' },
        'digest-hour': { type: 'string' },
        weekdays: { type: 'string' },
        'weekly-day': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (!read.ok) return invalid(read.message);
  const { values, positionals } = read.value;
  if (values.help) return { kind: 'help' };

  const positionalError = expectPositionals(positionals, ['<email>']);
  if (positionalError) return invalid(positionalError);
  if (values.keywords === undefined) return invalid('--keywords is required, e.g. --keywords "react, next.js"');

  let minBudget: number | null = null;
  const budgetText = values['min-budget'];
  if (budgetText !== undefined) {
    minBudget = Number(budgetText.trim());
    if (budgetText.trim() === '' || !Number.isFinite(minBudget)) return invalid(`--min-budget must be a number, got "${budgetText}"`);
  }
  const mode = values.mode ?? 'instant';
  if (!(DELIVERY_MODES as readonly string[]).includes(mode))
    return invalid(`--mode must be instant, daily, weekly or feed, got "${values.mode}"`);

  const checked = subscriberInputSchema.safeParse({
    email: positionals[0].trim(),
    keywords: splitList(values.keywords),
    excludes: splitList(values.excludes ?? ''),
    minBudget,
    mode,
    ...(values.about !== undefined ? { about: values.about } : {}),
    ...(values.timezone !== undefined ? { timezone: values.timezone } : {}),
    ...(values['digest-hour'] !== undefined ? { digestHour: values['digest-hour'] } : {}),
    ...(values.weekdays !== undefined ? { weekdays: values.weekdays } : {}),
    ...(values['weekly-day'] !== undefined ? { weeklyDay: values['weekly-day'] } : {}),
  });
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const field = String(issue.path[0] ?? '');
    const value = field === 'email' ? ` "${positionals[0]}"` : '';
    return invalid(`${argumentOf[field] ?? field}${value}: ${issue.message}`);
  }
  return { kind: 'args', args: { subscriber: checked.data } };
}

export async function usersAdd(ctx: CommandContext, { subscriber }: UsersAddArgs): Promise<number> {
  const { outcome } = await addActiveSubscriber(ctx.db, subscriber, ctx.now);
  const email = normaliseEmail(subscriber.email);
  if (outcome === 'kept-unsubscribed') {
    ctx.out(`kept-unsubscribed ${email}: they unsubscribed, so nothing was changed (opt-outs win)`);
    return EXIT.ok;
  }
  const details = [
    subscriber.mode,
    `keywords: ${subscriber.keywords.join(', ')}`,
    subscriber.excludes.length > 0 ? `excludes: ${subscriber.excludes.join(', ')}` : null,
    subscriber.minBudget !== null ? `min budget: ${subscriber.minBudget}` : null,
    subscriber.about ? `about: ${[...subscriber.about].length} characters` : null,
  ];
  ctx.out(`${outcome} ${email} (${details.filter(Boolean).join('; ')})`);
  return EXIT.ok;
}

export const usersAddCommand = defineCommand({
  name: 'add',
  summary: 'add or update an active subscriber',
  usage,
  parse: parseUsersAddArgs,
  run: usersAdd,
});
