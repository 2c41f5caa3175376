import { z } from 'zod';
import { subscriberInputSchema } from './subscriber';

/**
 * POST /api/signup, validated at the boundary. The same fields arrive as JSON (lists as arrays or
 * text) or from the landing page's form (every value a string, lists as comma/newline text); both
 * leave as the shape subscriberInputSchema stores, and its rules (email format, keyword count and
 * length, budget range) are the ones enforced here.
 */

export const signupFields = ['email', 'keywords', 'excludes', 'minBudget', 'mode'] as const;
export type SignupField = (typeof signupFields)[number];
/** One message per field; `body` when the request had no fields to pin a message to (not an object, not JSON). */
export type SignupFieldErrors = Partial<Record<SignupField | 'body', string>>;

/** "React,  Node.js\nreact" → ["react", "node.js"]: split, trimmed, normalised like stored keywords, de-duplicated. */
export const splitKeywordList = (value: string | string[]): string[] => {
  const items = (Array.isArray(value) ? value : [value]).flatMap((item) => item.split(/[,\r\n]+/));
  return [...new Set(items.map((item) => item.trim().toLowerCase().replace(/\s+/g, ' ')).filter((item) => item.length > 0))];
};

const keywordList = <Rules extends z.ZodType<string[], string[]>>(rules: Rules) =>
  z
    .union([z.string(), z.array(z.string())], { error: 'must be text separated by commas or new lines, or a list of words' })
    .transform(splitKeywordList)
    .pipe(rules);

/** "" or absent → no minimum; "1,500" and "$1500" → 1500; anything else is refused as not a number. */
const budgetInput = (value: unknown) => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return value;
  const cleaned = value.replace(/[$,\s]/g, '');
  if (cleaned === '') return null;
  const amount = Number(cleaned);
  return Number.isFinite(amount) ? amount : value;
};

export const signupSchema = z.object(
  {
    email: z
      .string({ error: (issue) => (issue.input === undefined ? 'enter your email address' : 'must be text') })
      .trim()
      .min(1, 'enter your email address')
      .max(254, 'must be at most 254 characters')
      .pipe(subscriberInputSchema.shape.email),
    keywords: z.preprocess((value) => value ?? '', keywordList(subscriberInputSchema.shape.keywords)),
    excludes: z.preprocess((value) => value ?? '', keywordList(subscriberInputSchema.shape.excludes.unwrap())),
    minBudget: z
      .preprocess(
        budgetInput,
        z
          .number({ error: 'must be a number, like 500' })
          .nonnegative('must be 0 or more')
          .max(10_000_000, 'must be at most 10,000,000')
          .nullable(),
      )
      .pipe(subscriberInputSchema.shape.minBudget.unwrap()),
    mode: z
      .enum(['instant', 'daily', ''], { error: 'choose instant or daily' })
      .optional()
      .transform((mode) => (mode === 'daily' ? 'daily' : 'instant')),
  },
  { error: 'the request body must be an object with email, keywords, excludes, minBudget and mode' },
);

export type SignupInput = z.output<typeof signupSchema>;

export type SignupParse = { ok: true; input: SignupInput } | { ok: false; fields: SignupFieldErrors };

/** Validates a signup body; on failure, the first message per field, keyed by the field's name. */
export function parseSignup(body: unknown): SignupParse {
  const result = signupSchema.safeParse(body);
  if (result.success) return { ok: true, input: result.data };
  const fields: SignupFieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    const key = typeof field === 'string' && (signupFields as readonly string[]).includes(field) ? (field as SignupField) : 'body';
    fields[key] ??= issue.message;
  }
  return { ok: false, fields };
}

/** A form body as the schema reads it: one string per field, or a list when a field repeats (`keywords=a&keywords=b`). */
export function formToSignupBody(form: URLSearchParams): Record<string, string | string[]> {
  const body: Record<string, string | string[]> = {};
  for (const key of new Set(form.keys())) {
    const values = form.getAll(key);
    body[key] = values.length === 1 ? values[0] : values;
  }
  return body;
}
