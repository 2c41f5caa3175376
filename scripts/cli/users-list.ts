import { parseArgs } from 'node:util';
import { subscribersCollection, subscriberStatuses, type Subscriber, type SubscriberStatus } from '../../lib/subscribers/subscriber';
import { describeMinPay } from '../../lib/pay/minimum-pay';
import { isKeywordQuery } from '../../lib/query/subscriber-query';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { expectPositionals, invalid, readArgv } from './cli-args';
import { formatTable } from './format-table';

export type UsersListArgs = { status: SubscriberStatus | null };

const usage = `Usage: scout users list [--status ${subscriberStatuses.join('|')}]

Prints every subscriber (or those with one status), sorted by email.

Options:
  --status <status>  only subscribers with this status
  -h, --help         show this help`;

export function parseUsersListArgs(argv: string[]): Parsed<UsersListArgs> {
  const read = readArgv(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { status: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }),
  );
  if (!read.ok) return invalid(read.message);
  const { values, positionals } = read.value;
  if (values.help) return { kind: 'help' };
  const positionalError = expectPositionals(positionals, []);
  if (positionalError) return invalid(positionalError);
  const status = values.status ?? null;
  if (status !== null && !isStatus(status)) return invalid(`--status must be one of ${subscriberStatuses.join(', ')}, got "${status}"`);
  return { kind: 'args', args: { status } };
}

const isStatus = (value: string): value is SubscriberStatus => (subscriberStatuses as readonly string[]).includes(value);

export async function usersList(ctx: CommandContext, { status }: UsersListArgs): Promise<number> {
  const collection = subscribersCollection(ctx.db);
  const snap = await (status ? collection.where('status', '==', status) : collection).get();
  // Sorted here rather than by the query: a filter plus an order on another field would need a composite index.
  const subscribers = snap.docs.map((doc) => doc.data()).sort((a, b) => a.email.localeCompare(b.email));
  if (subscribers.length === 0) {
    ctx.out(status ? `no ${status} subscribers` : 'no subscribers');
    return EXIT.ok;
  }
  const rows = subscribers.map((s) => [s.email, s.status, s.mode, describeMinPay(s.minPay) || '-', describeKeywords(s)]);
  for (const line of formatTable(['EMAIL', 'STATUS', 'MODE', 'MIN PAY', 'KEYWORDS'], rows)) ctx.out(line);
  ctx.out('');
  const noun = `${status ? `${status} ` : ''}${subscribers.length === 1 ? 'subscriber' : 'subscribers'}`;
  ctx.out(`${subscribers.length} ${noun}${status ? '' : ` (${countByStatus(subscribers)})`}`);
  return EXIT.ok;
}

/** Keyword lists as they always read; a written query as itself. */
const describeKeywords = (s: Subscriber) =>
  isKeywordQuery(s) ? s.keywords.join(', ') + (s.excludes.length > 0 ? ` (not: ${s.excludes.join(', ')})` : '') : `query: ${s.query}`;

function countByStatus(subscribers: Subscriber[]): string {
  return subscriberStatuses
    .map((status) => [status, subscribers.filter((s) => s.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
}

export const usersListCommand = defineCommand({
  name: 'list',
  summary: 'list subscribers',
  usage,
  parse: parseUsersListArgs,
  run: usersList,
});
