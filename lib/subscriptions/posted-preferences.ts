import type { Subscriber } from '../subscribers/subscriber';
import { formValuesOf, type PreferenceFormValues } from './preferences-page';

/**
 * The preferences as posted (`posted`: what updatePreferences validates) and as the page shows them
 * again (`values`: posted, or as stored where the post left a field out).
 */
export function postedPreferences(fields: URLSearchParams, current: Subscriber, aiOn: boolean) {
  // About and the threshold are optional in the post (absent: kept as stored); shown again as sent,
  // or as stored when not sent. Only the AI stage reads them, so while it is off they are not on
  // the page and a post that carries them anyway (an old page, a hand-made one) changes neither.
  const optional = (field: 'about' | 'fitThreshold' | 'timezone' | 'digestHour' | 'weeklyDay') => fields.get(field) ?? undefined;
  const forTheModel = (field: 'about' | 'fitThreshold') => (aiOn ? optional(field) : undefined);
  // Weekdays are checkboxes: none sent is "not on this form" (kept as stored), the schema refuses an empty choice.
  const weekdays = fields.getAll('weekdays');
  const posted = {
    keywords: fields.get('keywords') ?? '',
    excludes: fields.get('excludes') ?? '',
    // Absent (a page from before queries): the stored query stands unless the lists changed (resolveProfileQuery).
    query: fields.get('query') ?? undefined,
    minFixed: fields.get('minFixed') ?? '',
    minHourly: fields.get('minHourly') ?? '',
    minYearly: fields.get('minYearly') ?? '',
    minCurrency: fields.get('minCurrency') ?? '',
    minBudget: fields.get('minBudget') ?? '',
    about: forTheModel('about'),
    fitThreshold: forTheModel('fitThreshold'),
    mode: fields.get('mode') ?? '',
    timezone: optional('timezone'),
    digestHour: optional('digestHour'),
    weekdays: weekdays.length > 0 ? weekdays : undefined,
    weeklyDay: optional('weeklyDay'),
  };
  const stored = formValuesOf(current);
  const values: PreferenceFormValues = {
    ...posted,
    query: posted.query ?? stored.query,
    about: posted.about ?? stored.about,
    fitThreshold: posted.fitThreshold ?? stored.fitThreshold,
    timezone: posted.timezone ?? stored.timezone,
    digestHour: posted.digestHour ?? stored.digestHour,
    weekdays: posted.weekdays?.join(',') ?? stored.weekdays,
    weeklyDay: posted.weeklyDay ?? stored.weeklyDay,
  };
  return { posted, values };
}
