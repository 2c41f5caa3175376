import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { addActiveSubscriber, type AddOutcome } from '../../lib/subscribers/add-subscriber';
import { parseSubscribersCsv } from '../../lib/subscribers/import-csv';
import { normaliseEmail, subscriberId, subscriberInputSchema, type SubscriberInput } from '../../lib/subscribers/subscriber';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { expectPositionals, invalid, readArgv } from './cli-args';

export type UsersImportArgs = { file: string };

const usage = `Usage: scout users import <file.csv>

Adds every row as an active subscriber, like \`scout users add\`: an existing email (in any
case) is updated, someone who unsubscribed stays unsubscribed. Invalid rows are reported with
their line number and skipped; the valid rows are still imported, and the exit code is 1.

The header row is required: email,keywords,excludes,min_budget,mode
Lists inside a field are separated by ; or | (or commas, inside quotes).

Options:
  -h, --help   show this help`;

/** Rows for different subscribers are written in parallel; rows for the same one in file order, so the last wins. */
const CONCURRENCY = 8;

export function parseUsersImportArgs(argv: string[]): Parsed<UsersImportArgs> {
  const read = readArgv(() =>
    parseArgs({ args: argv, allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' } } }),
  );
  if (!read.ok) return invalid(read.message);
  if (read.value.values.help) return { kind: 'help' };
  const positionalError = expectPositionals(read.value.positionals, ['<file.csv>']);
  if (positionalError) return invalid(positionalError);
  return { kind: 'args', args: { file: read.value.positionals[0] } };
}

type ValidRow = { line: number; input: SubscriberInput };

export async function usersImport(ctx: CommandContext, { file }: UsersImportArgs): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    ctx.out(`cannot read ${file}: ${(error as Error).message}`);
    return EXIT.usage;
  }
  let rows: ReturnType<typeof parseSubscribersCsv>;
  try {
    rows = parseSubscribersCsv(text);
  } catch (error) {
    ctx.out(`${file} is not a readable CSV file, nothing imported: ${(error as Error).message}`);
    return EXIT.problems;
  }
  if (rows.length === 0) {
    ctx.out(`${file} has no rows, nothing imported (the header row is email,keywords,excludes,min_budget,mode)`);
    return EXIT.problems;
  }

  const errors: string[] = [];
  const valid: ValidRow[] = [];
  for (const row of rows) {
    const problem = row.error ?? (row.input ? describeInvalid(row.input) : 'empty row');
    if (problem === null && row.input) valid.push({ line: row.line, input: row.input });
    else errors.push(`line ${row.line}: ${problem}`);
  }

  const { outcomes, failure, unsaved } = await importRows(ctx, valid);
  const counts: Record<AddOutcome, number> = { created: 0, updated: 0, 'kept-unsubscribed': 0 };
  for (const { line, input, outcome } of outcomes) {
    counts[outcome] += 1;
    if (outcome === 'kept-unsubscribed')
      ctx.out(`line ${line}: ${normaliseEmail(input.email)} unsubscribed earlier and stays unsubscribed`);
  }
  for (const error of errors) ctx.out(error);
  if (failure) {
    ctx.out(`line ${failure.line}: not saved, import stopped: ${failure.message}`);
    ctx.out(`${unsaved} valid rows were not saved; the import is safe to run again`);
  }
  ctx.out(
    `${file}: ${rows.length} rows — ${counts.created} created, ${counts.updated} updated, ${counts['kept-unsubscribed']} kept-unsubscribed, ${errors.length} invalid`,
  );
  return errors.length > 0 || failure ? EXIT.problems : EXIT.ok;
}

/** The same rules as `users add`, so a row is rejected here rather than halfway through the import. */
function describeInvalid(input: SubscriberInput): string | null {
  const checked = subscriberInputSchema.safeParse(input);
  if (checked.success) return null;
  const issue = checked.error.issues[0];
  const field = String(issue.path[0] ?? 'row');
  const value = field === 'email' ? ` "${input.email}"` : '';
  return `${field}${value}: ${issue.message}`;
}

type ImportResult = {
  outcomes: (ValidRow & { outcome: AddOutcome })[];
  /** The first row whose write failed (the store is down, say): the import stops there. */
  failure: { line: number; message: string } | null;
  /** Valid rows not saved because of the failure (its own row included). */
  unsaved: number;
};

async function importRows(ctx: CommandContext, rows: ValidRow[]): Promise<ImportResult> {
  const bySubscriber = new Map<string, ValidRow[]>();
  for (const row of rows) {
    const id = subscriberId(row.input.email);
    bySubscriber.set(id, [...(bySubscriber.get(id) ?? []), row]);
  }
  const result: ImportResult = { outcomes: [], failure: null, unsaved: 0 };
  const limit = pLimit(CONCURRENCY);
  const chains = [...bySubscriber.values()].map((chain) =>
    limit(async () => {
      for (const row of chain) {
        if (result.failure) {
          result.unsaved += 1;
          continue;
        }
        try {
          result.outcomes.push({ ...row, outcome: (await addActiveSubscriber(ctx.db, row.input, ctx.now)).outcome });
        } catch (error) {
          result.unsaved += 1;
          result.failure ??= { line: row.line, message: error instanceof Error ? error.message : String(error) };
        }
      }
    }),
  );
  // Every write is awaited, failed or not, before the summary is printed.
  await Promise.all(chains);
  result.outcomes.sort((a, b) => a.line - b.line);
  return result;
}

export const usersImportCommand = defineCommand({
  name: 'import',
  summary: 'add subscribers from a CSV file',
  usage,
  parse: parseUsersImportArgs,
  run: usersImport,
});
