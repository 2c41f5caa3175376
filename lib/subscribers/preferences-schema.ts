import { z } from 'zod';

/**
 * What the preferences form may change, validated at the boundary. Keywords and excludes arrive
 * as the text of a textarea (comma- or newline-separated) or as a list; either way they leave as
 * lowercased, whitespace-collapsed, de-duplicated lists — the same shape subscriberInputSchema
 * stores, so matching sees no difference between a keyword typed here and one imported.
 */

export const MAX_KEYWORDS = 25;
export const MAX_EXCLUDES = 25;
export const MAX_KEYWORD_LENGTH = 60;
export const MAX_MIN_BUDGET = 10_000_000;

/** The form's fields, in the order the page shows them (and the error summary lists them). */
export const preferenceFields = ['keywords', 'excludes', 'minBudget', 'mode'] as const;
export type PreferenceField = (typeof preferenceFields)[number];
export type PreferenceFieldErrors = Partial<Record<PreferenceField, string>>;

/** "React,  Node.js\nTypeScript" → ["React", "Node.js", "TypeScript"]; a list passes through, trimmed. */
export const splitList = (value: string | string[]): string[] =>
  (Array.isArray(value) ? value : value.split(/[,\r\n]+/)).map((item) => item.trim()).filter((item) => item.length > 0);

const normaliseKeyword = (keyword: string) => keyword.toLowerCase().replace(/\s+/g, ' ');

/** Absent (an empty form field is not even sent by some clients) reads as an empty list. */
const listInput = z.preprocess(
  (value) => value ?? '',
  z.union([z.string(), z.array(z.string())], { error: 'must be text or a list of words' }),
);

/** A comma/newline list of keywords: each at most 60 characters, at most `max` after de-duplication. */
const keywordList = (input: { min: number; max: number; noun: string }) =>
  listInput
    .transform(splitList)
    .pipe(
      z.array(
        z
          .string()
          .max(MAX_KEYWORD_LENGTH, `each ${input.noun} must be at most ${MAX_KEYWORD_LENGTH} characters`)
          .transform(normaliseKeyword),
      ),
    )
    .transform((items) => [...new Set(items)])
    .pipe(
      z.array(z.string()).min(input.min, `enter at least one ${input.noun}`).max(input.max, `enter at most ${input.max} ${input.noun}s`),
    );

/** "" / absent → no minimum; "1,500" and "$1500" → 1500; anything else is left for z.number to refuse. */
const budgetInput = (value: unknown) => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return value;
  const cleaned = value.replace(/[$,\s]/g, '');
  if (cleaned === '') return null;
  const amount = Number(cleaned);
  return Number.isFinite(amount) ? amount : value;
};

export const preferencesSchema = z.object({
  keywords: keywordList({ min: 1, max: MAX_KEYWORDS, noun: 'keyword' }),
  excludes: keywordList({ min: 0, max: MAX_EXCLUDES, noun: 'exclude' }),
  minBudget: z.preprocess(
    budgetInput,
    z
      .number({ error: 'must be a number, like 500' })
      .nonnegative('must be 0 or more')
      .max(MAX_MIN_BUDGET, `must be at most ${MAX_MIN_BUDGET.toLocaleString('en-US')}`)
      .nullable(),
  ),
  mode: z.enum(['instant', 'daily'], { error: 'choose instant or daily' }),
});

export type PreferencesInput = z.input<typeof preferencesSchema>;
export type Preferences = z.output<typeof preferencesSchema>;

export type PreferencesParse = { ok: true; preferences: Preferences } | { ok: false; errors: PreferenceFieldErrors };

/** Validates the form; on failure, one message per field (the first), keyed by the field's name. */
export function parsePreferences(input: unknown): PreferencesParse {
  const result = preferencesSchema.safeParse(input);
  if (result.success) return { ok: true, preferences: result.data };
  const errors: PreferenceFieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && (preferenceFields as readonly string[]).includes(field)) {
      errors[field as PreferenceField] ??= issue.message;
    }
  }
  // A non-object input has no field to pin the message to; keywords is the first one the form shows.
  if (Object.keys(errors).length === 0) errors.keywords = result.error.issues[0]?.message ?? 'is not valid';
  return { ok: false, errors };
}
