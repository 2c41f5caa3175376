import { CADENCE_CHOICES } from './schedule-fields';
import { DEFAULT_TIMEZONE, DEFAULT_WEEKLY_DAY, WEEKDAYS } from '../subscribers/digest-schedule';
import type { DeliveryMode } from '../subscribers/subscriber';
import { DEFAULT_MINIMUM_CURRENCY } from '../pay/minimum-pay';

/**
 * The form's values as typed: lists stay text, so a page shown again shows exactly what was sent;
 * mode is '' when the post chose none, so the page shown with that error checks nothing either.
 */
export type SignupFormValues = {
  email: string;
  keywords: string;
  excludes: string;
  /** The "Advanced" field as typed; '' says the lists are the query. */
  query: string;
  minFixed: string;
  minHourly: string;
  minYearly: string;
  minCurrency: string;
  about: string;
  mode: DeliveryMode | '';
  timezone: string;
  /** '' is the default hour. */
  digestHour: string;
  weekdays: string[];
  weeklyDay: string;
};

export const emptySignupValues: SignupFormValues = {
  email: '',
  keywords: '',
  excludes: '',
  query: '',
  minFixed: '',
  minHourly: '',
  minYearly: '',
  minCurrency: DEFAULT_MINIMUM_CURRENCY,
  about: '',
  mode: 'instant',
  timezone: DEFAULT_TIMEZONE,
  digestHour: '',
  weekdays: [...WEEKDAYS],
  weeklyDay: DEFAULT_WEEKLY_DAY,
};

/** What a form post typed (formToSignupBody's shape), to show it again next to its errors or its preview. */
export function signupFormValuesOf(body: Record<string, string | string[] | undefined>): SignupFormValues {
  const text = (value: string | string[] | undefined, separator = ', ') => (Array.isArray(value) ? value.join(separator) : (value ?? ''));
  const mode = text(body.mode);
  const weekdays = body.weekdays;
  return {
    // The address the visitor confirmed after a suggestion is the one they meant (signup-schema.ts).
    email: text(body.confirmedEmail, '') || text(body.email, ''),
    keywords: text(body.keywords),
    excludes: text(body.excludes),
    query: text(body.query, ' '),
    // An old form's minBudget is shown as the fixed minimum it means.
    minFixed: text(body.minFixed, '') || text(body.minBudget, ''),
    minHourly: text(body.minHourly, ''),
    minYearly: text(body.minYearly, ''),
    minCurrency: text(body.minCurrency, '') || DEFAULT_MINIMUM_CURRENCY,
    about: text(body.about, '\n'),
    mode: CADENCE_CHOICES.find((choice) => choice.mode === mode)?.mode ?? '',
    timezone: text(body.timezone, '') || DEFAULT_TIMEZONE,
    digestHour: text(body.digestHour, ''),
    weekdays: Array.isArray(weekdays) ? weekdays : weekdays ? [weekdays] : [],
    weeklyDay: text(body.weeklyDay, '') || DEFAULT_WEEKLY_DAY,
  };
}

/**
 * "Did you mean …?" under the email field (lib/subscribers/email-typo.ts), asked by the server: it
 * held the signup back for it, so each button signs up with its address (`confirmedEmail`). The
 * form script offers the same question as the field is left, built from the same words.
 */
