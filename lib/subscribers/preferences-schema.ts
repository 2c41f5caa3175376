import { z } from 'zod';
import { firstErrorPerField, nothingToLookFor, preferenceShape } from './preference-fields';
import { MIN_PAY_INPUT_FIELDS, withMinPay } from '../pay/minimum-pay';

/**
 * What the preferences form may change, validated at the boundary. Keywords and excludes arrive
 * as the text of a textarea (comma- or newline-separated) or as a list; either way they leave as
 * lowercased, whitespace-collapsed, de-duplicated lists — the same shape subscriberInputSchema
 * stores, so matching sees no difference between a keyword typed here and one imported.
 */

export { DEFAULT_FIT_THRESHOLD, MAX_ABOUT_LENGTH, MAX_EXCLUDES, MAX_KEYWORD_LENGTH, MAX_KEYWORDS } from './preference-fields';

/** The form's fields, in the order the page shows them (and the error summary lists them). */
export const preferenceFields = [
  'keywords',
  'excludes',
  'query',
  ...MIN_PAY_INPUT_FIELDS,
  'about',
  'fitThreshold',
  'mode',
  'timezone',
  'digestHour',
  'weekdays',
  'weeklyDay',
] as const;
export type PreferenceField = (typeof preferenceFields)[number];
export type PreferenceFieldErrors = Partial<Record<PreferenceField, string>>;

/**
 * About and the fit threshold may be absent (a page from before they existed; the threshold is
 * only shown with the AI stage on): absent leaves the stored value as it is. An empty about clears it.
 */
export const preferencesSchema = z
  .object({
    ...preferenceShape,
    about: preferenceShape.about.optional(),
    fitThreshold: preferenceShape.fitThreshold.optional(),
    // Absent (a page from before schedules, or one that does not show them): kept as stored.
    timezone: preferenceShape.timezone.optional(),
    digestHour: preferenceShape.digestHour.optional(),
    weekdays: preferenceShape.weekdays.optional(),
    weeklyDay: preferenceShape.weeklyDay.optional(),
  })
  .transform(withMinPay);

export type PreferencesInput = z.input<typeof preferencesSchema>;
export type Preferences = z.output<typeof preferencesSchema>;

export type PreferencesParse = { ok: true; preferences: Preferences } | { ok: false; errors: PreferenceFieldErrors };

/** Validates the form; on failure, one message per field (the first), keyed by the field's name. */
export function parsePreferences(input: unknown): PreferencesParse {
  const result = preferencesSchema.safeParse(input);
  const nothing = nothingToLookFor(input);
  if (result.success && !nothing) return { ok: true, preferences: result.data };
  // A non-object input has no field to pin the message to; keywords is the first one the form shows.
  const errors = result.success ? {} : firstErrorPerField(result.error.issues, preferenceFields, 'keywords');
  return { ok: false, errors: nothing && !errors.keywords ? { keywords: nothing, ...errors } : errors };
}
