import { z } from 'zod';
import { firstErrorPerField, preferenceShape } from '../subscribers/preference-fields';
import { PREVIEW_FIELDS } from './preview';
import { withMinPay } from '../pay/minimum-pay';

/**
 * What a preview reads from a form: the fields that decide what matches and how often it is sent,
 * with the very schemas signup and preferences validate them with (preference-fields.ts), so a
 * preview refuses exactly what saving would refuse, with the same words. Anything else a form
 * posts (email, about, a token) is dropped unread.
 */
export type PreviewField = (typeof PREVIEW_FIELDS)[number];
export type PreviewFieldErrors = Partial<Record<PreviewField | 'body', string>>;

export const previewSchema = z
  .object(
    {
      keywords: preferenceShape.keywords,
      excludes: preferenceShape.excludes,
      minFixed: preferenceShape.minFixed,
      minHourly: preferenceShape.minHourly,
      minYearly: preferenceShape.minYearly,
      minCurrency: preferenceShape.minCurrency,
      minBudget: preferenceShape.minBudget,
      mode: preferenceShape.mode,
      timezone: preferenceShape.timezone,
      digestHour: preferenceShape.digestHour,
      weekdays: preferenceShape.weekdays,
      weeklyDay: preferenceShape.weeklyDay,
    },
    { error: 'the request body must be an object with keywords, excludes, mode, the minimums and the schedule fields' },
  )
  .transform(withMinPay);

export type PreviewInput = z.output<typeof previewSchema>;

export type PreviewParse = { ok: true; input: PreviewInput } | { ok: false; fields: PreviewFieldErrors };

export function parsePreview(body: unknown): PreviewParse {
  const result = previewSchema.safeParse(body);
  if (result.success) return { ok: true, input: result.data };
  return { ok: false, fields: firstErrorPerField<PreviewField | 'body'>(result.error.issues, PREVIEW_FIELDS, 'body') };
}
