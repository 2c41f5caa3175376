import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { DELIVERY_MODES, subscriberInputSchema, type SubscriberInput } from './subscriber';

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
 * Reads `email,keywords,excludes,min_budget,mode,about,timezone,digest_hour,weekdays,weekly_day`
 * (header row required; lists separated by ; or |; `about` optional free text, quoted when it holds
 * commas — a file without the column, or a row leaving it empty, keeps what an existing subscriber
 * wrote; the same for the schedule columns, which the subscriber schema validates).
 * Mode is instant, daily, weekly or feed.
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
    const budgetText = row.data.min_budget ?? row.data.minbudget;
    const minBudget = budgetText ? Number(budgetText.replace(/[$,\s]/g, '')) : null;
    if (minBudget !== null && !Number.isFinite(minBudget)) return { line, error: `min_budget "${budgetText}" is not a number` };
    const mode = (row.data.mode || 'instant').toLowerCase();
    if (!(DELIVERY_MODES as readonly string[]).includes(mode))
      return { line, error: `mode "${row.data.mode}" must be instant, daily, weekly or feed` };
    const schedule = subscriberInputSchema.pick({ timezone: true, digestHour: true, weekdays: true, weeklyDay: true }).safeParse({
      ...(row.data.timezone ? { timezone: row.data.timezone } : {}),
      ...(row.data.digest_hour ? { digestHour: row.data.digest_hour } : {}),
      ...(row.data.weekdays ? { weekdays: listField(row.data.weekdays) } : {}),
      ...(row.data.weekly_day ? { weeklyDay: row.data.weekly_day } : {}),
    });
    if (!schedule.success) return { line, error: `${String(schedule.error.issues[0].path[0])}: ${schedule.error.issues[0].message}` };
    return {
      line,
      input: {
        email: row.data.email,
        keywords: listField(row.data.keywords),
        excludes: listField(row.data.excludes),
        minBudget,
        mode: mode as SubscriberInput['mode'],
        ...schedule.data,
        ...(row.data.about ? { about: row.data.about } : {}),
      },
    };
  });
}
