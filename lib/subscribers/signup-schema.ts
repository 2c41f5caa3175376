import { z } from 'zod';
import { firstErrorPerField, preferenceShape } from './preference-fields';
import { subscriberInputSchema } from './subscriber';
import { MIN_PAY_INPUT_FIELDS, withMinPay } from '../pay/minimum-pay';

/**
 * POST /api/signup, validated at the boundary. The same fields arrive as JSON (lists as arrays or
 * text) or from the landing page's form (every value a string, lists as comma/newline text); both
 * leave as the shape subscriberInputSchema stores, and its rules (email format, keyword count,
 * length and characters — keyword-term.ts —, the minimums' range) are the ones enforced here.
 */

export const signupFields = [
  'email',
  'keywords',
  'excludes',
  ...MIN_PAY_INPUT_FIELDS,
  'mode',
  'about',
  'timezone',
  'digestHour',
  'weekdays',
  'weeklyDay',
] as const;
export type SignupField = (typeof signupFields)[number];
/** One message per field; `body` when the request had no fields to pin a message to (not an object, not JSON). */
export type SignupFieldErrors = Partial<Record<SignupField | 'body', string>>;

export const signupSchema = z
  .object(
    {
      email: z
        .string({ error: (issue) => (issue.input === undefined ? 'enter your email address' : 'must be text') })
        .trim()
        .min(1, 'enter your email address')
        .max(254, 'must be at most 254 characters')
        .pipe(subscriberInputSchema.shape.email),
      keywords: preferenceShape.keywords,
      excludes: preferenceShape.excludes,
      minFixed: preferenceShape.minFixed,
      minHourly: preferenceShape.minHourly,
      minYearly: preferenceShape.minYearly,
      minCurrency: preferenceShape.minCurrency,
      minBudget: preferenceShape.minBudget,
      // Required (docs/design.md §5): the landing page preselects instant, so only a client that left mode
      // out meets this, and it is told rather than given a mode it never chose.
      mode: preferenceShape.mode,
      // Optional: absent, null or blank is '' (nothing said). Up to 500 characters (fit-profile.ts).
      about: preferenceShape.about,
      // Optional, as they arrive (docs/design.md §5): absent is 08:00 UTC every day, a weekly digest on Monday.
      timezone: preferenceShape.timezone,
      digestHour: preferenceShape.digestHour,
      weekdays: preferenceShape.weekdays,
      weeklyDay: preferenceShape.weeklyDay,
    },
    {
      error:
        'the request body must be an object with email, keywords, excludes, mode, optionally minFixed, minHourly, minYearly, minCurrency and about',
    },
  )
  .transform(withMinPay);

export type SignupInput = z.output<typeof signupSchema>;

export type SignupParse = { ok: true; input: SignupInput } | { ok: false; fields: SignupFieldErrors };

/** Validates a signup body; on failure, the first message per field, keyed by the field's name. */
export function parseSignup(body: unknown): SignupParse {
  const result = signupSchema.safeParse(body);
  if (result.success) return { ok: true, input: result.data };
  return { ok: false, fields: firstErrorPerField<SignupField | 'body'>(result.error.issues, signupFields, 'body') };
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
