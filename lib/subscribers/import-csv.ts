import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { parseQuery } from '../query/parse-query';
import { DELIVERY_MODES, minPayOfSubscriberInput, subscriberInputFields, type SubscriberInput } from './subscriber';

/** The column each minimum comes from, for a row's error. */
const COLUMN_OF: Record<string, string> = {
  minFixed: 'min_fixed',
  minHourly: 'min_hourly',
  minYearly: 'min_yearly',
  minCurrency: 'min_currency',
  minBudget: 'min_budget',
};

export type CsvRow = { line: number; input?: SubscriberInput; error?: string };

const listField = (value: string | undefined) =>
  (value ?? '')
    .split(/[;|,]/)
    .map((v) => v.trim())
    .filter(Boolean);

const rowSchema = z.object({
  email: z.string(),
  keywords: z.string().optional(),
  excludes: z.string().optional(),
  query: z.string().optional(),
  min_fixed: z.string().optional(),
  min_hourly: z.string().optional(),
  min_yearly: z.string().optional(),
  min_currency: z.string().optional(),
  min_budget: z.string().optional(),
  minbudget: z.string().optional(),
  mode: z.string().optional(),
  about: z.string().optional(),
  timezone: z.string().optional(),
  digest_hour: z.string().optional(),
  weekdays: z.string().optional(),
  weekly_day: z.string().optional(),
});

/**
 * Reads `email,keywords,excludes,query,min_fixed,min_hourly,min_yearly,min_currency,mode,about,timezone,digest_hour,weekdays,weekly_day`
 * (each minimum an amount or money text, "$1,500" or "150k", in min_currency unless it names its
 * own; the old `min_budget` column is still read, as a fixed price in USD)
 * (header row required; lists separated by ; or |; `about` optional free text, quoted when it holds
 * commas — a file without the column, or a row leaving it empty, keeps what an existing subscriber
 * wrote; the same for the schedule columns, which the subscriber schema validates).
 * Mode is instant, daily, weekly or feed. A `query` (docs/query.md) replaces keywords and excludes
 * when given, with its parse error reported for the row.
 * Bad rows are reported with their line number instead of stopping the import.
 */
export function parseSubscribersCsv(text: string): CsvRow[] {
  const records: Record<string, string>[] = parse(text, {
    columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
    skip_empty_lines: true,
    trim: true,
    relax_column_count: true,
  });
  return records.map((record, index) => {
    const line = index + 2;
    const row = rowSchema.safeParse(record);
    if (!row.success) return { line, error: 'missing email column' };
    const typed = {
      minFixed: row.data.min_fixed,
      minHourly: row.data.min_hourly,
      minYearly: row.data.min_yearly,
      minCurrency: row.data.min_currency,
      minBudget: row.data.min_budget ?? row.data.minbudget,
    };
    const minimums = subscriberInputFields
      .pick({ minFixed: true, minHourly: true, minYearly: true, minCurrency: true, minBudget: true })
      .safeParse(typed);
    if (!minimums.success) {
      const field = String(minimums.error.issues[0].path[0]) as keyof typeof typed;
      return { line, error: `${COLUMN_OF[field] ?? field} "${typed[field]}": ${minimums.error.issues[0].message}` };
    }
    const mode = (row.data.mode || 'instant').toLowerCase();
    if (!(DELIVERY_MODES as readonly string[]).includes(mode))
      return { line, error: `mode "${row.data.mode}" must be instant, daily, weekly or feed` };
    const schedule = subscriberInputFields.pick({ timezone: true, digestHour: true, weekdays: true, weeklyDay: true }).safeParse({
      ...(row.data.timezone ? { timezone: row.data.timezone } : {}),
      ...(row.data.digest_hour ? { digestHour: row.data.digest_hour } : {}),
      ...(row.data.weekdays ? { weekdays: listField(row.data.weekdays) } : {}),
      ...(row.data.weekly_day ? { weeklyDay: row.data.weekly_day } : {}),
    });
    if (!schedule.success) return { line, error: `${String(schedule.error.issues[0].path[0])}: ${schedule.error.issues[0].message}` };
    const written = row.data.query?.trim() ?? '';
    const query = written ? parseQuery(written) : null;
    if (query && !query.ok) return { line, error: `query "${written}": ${query.error.message}` };
    return {
      line,
      input: {
        email: row.data.email,
        keywords: listField(row.data.keywords),
        excludes: listField(row.data.excludes),
        ...(written ? { query: written } : {}),
        minPay: minPayOfSubscriberInput(minimums.data),
        mode: mode as SubscriberInput['mode'],
        ...schedule.data,
        ...(row.data.about ? { about: row.data.about } : {}),
      },
    };
  });
}
