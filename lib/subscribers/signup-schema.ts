import { z } from 'zod';
import { firstErrorPerField, nothingToLookFor, preferenceShape, splitKeywordList } from './preference-fields';
import { parseQuery } from '../query/parse-query';
import { subscriberInputSchema } from './subscriber';
import { MIN_PAY_INPUT_FIELDS, withMinPay } from '../pay/minimum-pay';
import { resolveProfileQuery, saysTheLists } from '../query/subscriber-query';

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
  'query',
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
      // Optional: the "Advanced: write a query" field. When written, it is the subscription.
      query: preferenceShape.query,
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
  .superRefine(
    (form, ctx) => {
      // Nothing is stored at a signup: a written query is the subscription, and must parse.
      // The lists' own text (a page's script keeps the field in step with them) is read as the lists.
      // A list whose own field failed is still its text here: split as typed, so its error stays its own.
      const listOf = (value: unknown): string[] =>
        Array.isArray(value)
          ? splitKeywordList(value.filter((item) => typeof item === 'string'))
          : typeof value === 'string'
            ? splitKeywordList(value)
            : [];
      const lists = { keywords: listOf(form.keywords), excludes: listOf(form.excludes), query: form.query };
      const written = saysTheLists(lists) ? '' : form.query?.trim();
      const parsed = written ? parseQuery(written) : null;
      if (parsed && !parsed.ok) ctx.addIssue({ code: 'custom', path: ['query'], message: parsed.error.message });
    },
    { when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value) },
  )
  .transform(withMinPay)
  .transform((input, ctx) => {
    // A signup has nothing stored: a written query wins, else the keyword lists are the query.
    const resolved = resolveProfileQuery(input);
    if (!resolved.ok) {
      ctx.addIssue({ code: 'custom', path: [resolved.field], message: resolved.message });
      return z.NEVER;
    }
    return { ...input, ...resolved.stored };
  });

export type SignupInput = z.output<typeof signupSchema>;

/**
 * `emailConfirmed`: the body carried `confirmedEmail`, the address the visitor chose after Scout
 * suggested a correction (the suggestion, or what they typed "anyway"). It replaces `email`, is
 * validated as `email` is (its errors are reported as `email`'s) and is not checked for a typo again.
 */
export type SignupParse = { ok: true; input: SignupInput; emailConfirmed: boolean } | { ok: false; fields: SignupFieldErrors };

/** Validates a signup body; on failure, the first message per field, keyed by the field's name. */
export function parseSignup(body: unknown): SignupParse {
  const confirmed = confirmedEmailOf(body);
  const result = signupSchema.safeParse(confirmed === null ? body : { ...(body as object), email: confirmed });
  const nothing = nothingToLookFor(body);
  if (result.success && !nothing) return { ok: true, input: result.data, emailConfirmed: confirmed !== null };
  const fields = result.success ? {} : firstErrorPerField<SignupField | 'body'>(result.error.issues, signupFields, 'body');
  return { ok: false, fields: nothing && !fields.keywords ? { keywords: nothing, ...fields } : fields };
}

/** The body's `confirmedEmail` when it names one (a string with something in it), else null. */
export function confirmedEmailOf(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || !('confirmedEmail' in body)) return null;
  const value = body.confirmedEmail;
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/**
 * What a post to /api/signup asks for (`action`, as the preferences form names its buttons):
 * `signup` (absent: the form's own button), `resend` ("Send it again": the same signup once more,
 * under the same limits) or `change` ("Not you? Change it": the form back, nothing written).
 */
export const SIGNUP_ACTIONS = ['signup', 'resend', 'change'] as const;
export type SignupAction = (typeof SIGNUP_ACTIONS)[number];

export function signupActionOf(body: unknown): SignupAction | null {
  const value = typeof body === 'object' && body !== null && 'action' in body ? body.action : undefined;
  if (value === undefined || value === null || value === '') return 'signup';
  return (SIGNUP_ACTIONS as readonly unknown[]).includes(value) ? (value as SignupAction) : null;
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
