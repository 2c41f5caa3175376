import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { DELIVERY_MODES, minPayOfSubscriberInput, normaliseEmail, subscriberInputSchema } from '../../lib/subscribers/subscriber';
import { describeMinPay, hasMinPay } from '../../lib/pay/minimum-pay';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { expectPositionals, invalid, readArgv, splitList } from './cli-args';

/** A subscriber as the schema leaves it: lowercased keywords, defaults filled in. */
export type UsersAddArgs = { subscriber: z.output<typeof subscriberInputSchema> };

const usage = `Usage: scout users add <email> (--keywords <list> [--excludes <list>] | --query <query>) [--min-fixed <amount>] [--min-hourly <amount>] [--min-yearly <amount>] [--min-currency <code>] [--mode instant|daily|weekly|feed] [--timezone <zone>] [--digest-hour <0-23>] [--weekdays <list>] [--weekly-day <day>] [--about <text>]

Adds a subscriber as active (confirmed), or updates the one with that email (in any case).
Someone who unsubscribed stays unsubscribed: opt-outs win.

Options:
  --keywords <list>      required; comma-separated, e.g. "react, next.js"
  --excludes <list>      postings mentioning any of these are never sent, e.g. "wordpress"
  --query <query>        a search query instead of keywords and excludes (docs/query.md),
                         e.g. 'title:(react OR vue) remote:yes -wordpress rate>=60'
  --min-fixed <amount>   skip fixed-price postings whose price, in the same currency, is below this, e.g. 500
  --min-hourly <amount>  the same for hourly rates, e.g. 45 or €45
  --min-yearly <amount>  the same for yearly salaries, e.g. 100000 or $150k
  --min-currency <code>  currency of the minimums that name none, e.g. EUR (default USD)
  --min-budget <amount>  the old single minimum: a fixed price in USD, as --min-fixed
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
  query: '--query',
  minFixed: '--min-fixed',
  minHourly: '--min-hourly',
  minYearly: '--min-yearly',
  minCurrency: '--min-currency',
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
        query: { type: 'string' },
        'min-fixed': { type: 'string' },
        'min-hourly': { type: 'string' },
        'min-yearly': { type: 'string' },
        'min-currency': { type: 'string' },
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
  if (values.keywords === undefined && values.query === undefined)
    return invalid('--keywords or --query is required, e.g. --keywords "react, next.js" or --query "react OR vue -php"');

  // Each minimum is money text ("500", "$1,500", "150k"); the schema reads it and names the flag at fault.
  for (const flag of ['min-fixed', 'min-hourly', 'min-yearly', 'min-budget'] as const)
    if (values[flag] !== undefined && values[flag].trim() === '') return invalid(`--${flag} must be an amount, got ""`);
  const mode = values.mode ?? 'instant';
  if (!(DELIVERY_MODES as readonly string[]).includes(mode))
    return invalid(`--mode must be instant, daily, weekly or feed, got "${values.mode}"`);

  const checked = subscriberInputSchema.safeParse({
    email: positionals[0].trim(),
    keywords: splitList(values.keywords ?? ''),
    ...(values.query !== undefined ? { query: values.query } : {}),
    excludes: splitList(values.excludes ?? ''),
    minFixed: values['min-fixed'],
    minHourly: values['min-hourly'],
    minYearly: values['min-yearly'],
    minCurrency: values['min-currency'],
    minBudget: values['min-budget'],
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
  const minPay = minPayOfSubscriberInput(subscriber);
  if (outcome === 'kept-unsubscribed') {
    ctx.out(`kept-unsubscribed ${email}: they unsubscribed, so nothing was changed (opt-outs win)`);
    return EXIT.ok;
  }
  const details = [
    subscriber.mode,
    subscriber.query?.trim() ? `query: ${subscriber.query.trim()}` : `keywords: ${subscriber.keywords.join(', ')}`,
    subscriber.excludes.length > 0 ? `excludes: ${subscriber.excludes.join(', ')}` : null,
    hasMinPay(minPay) ? `min pay: ${describeMinPay(minPay)}` : null,
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
