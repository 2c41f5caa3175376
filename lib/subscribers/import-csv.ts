import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import type { SubscriberInput } from './subscriber';

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
});

/**
 * Reads `email,keywords,excludes,min_budget,mode,about` (header row required; lists separated by ; or |;
 * `about` optional free text, quoted when it holds commas — a file without the column, or a row
 * leaving it empty, keeps what an existing subscriber wrote).
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
    if (mode !== 'instant' && mode !== 'daily') return { line, error: `mode "${row.data.mode}" must be instant or daily` };
    return {
      line,
      input: {
        email: row.data.email,
        keywords: listField(row.data.keywords),
        excludes: listField(row.data.excludes),
        minBudget,
        mode,
        ...(row.data.about ? { about: row.data.about } : {}),
      },
    };
  });
}
