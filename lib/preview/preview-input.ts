import { z } from 'zod';
import { firstErrorPerField, nothingToLookFor, preferenceShape } from '../subscribers/preference-fields';
import { PREVIEW_FIELDS } from './preview';
import { withMinPay } from '../pay/minimum-pay';
import { resolveProfileQuery, type QueryProfile, type StoredQuery } from '../query/subscriber-query';

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
      query: preferenceShape.query,
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

/** The fields as a preview matches them: the query resolved as saving would store it (resolveProfileQuery). */
export type PreviewInput = Omit<z.output<typeof previewSchema>, 'query'> & StoredQuery;

/** `queryAt`: where in the written query its error is, for the page to point at it. */
export type PreviewParse = { ok: true; input: PreviewInput } | { ok: false; fields: PreviewFieldErrors; queryAt?: number };

/**
 * Validates a preview's fields and resolves its query: against what is stored when the preview is of
 * a subscriber's own page without a script (`stored`), else as a signup would (a written query wins).
 */
export function parsePreview(body: unknown, stored?: QueryProfile): PreviewParse {
  const result = previewSchema.safeParse(body);
  const nothing = nothingToLookFor(body);
  if (result.success && !nothing) {
    const query = resolveProfileQuery(result.data, stored);
    if (query.ok) return { ok: true, input: { ...result.data, ...query.stored } };
    return { ok: false, fields: { [query.field]: query.message }, ...(query.at !== undefined ? { queryAt: query.at } : {}) };
  }
  const fields = result.success ? {} : firstErrorPerField<PreviewField | 'body'>(result.error.issues, PREVIEW_FIELDS, 'body');
  return { ok: false, fields: nothing && !fields.keywords ? { keywords: nothing, ...fields } : fields };
}
