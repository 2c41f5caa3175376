/**
 * The words of the minimum-pay fields, the one copy every form uses (the signup form, its no-script
 * pages, the preferences page): one minimum per kind of pay a posting can state and Scout compares
 * (a fixed price, an hourly rate, a yearly salary; minimum-pay.ts), each kind on its own, in one
 * currency. No imports.
 */

export const MINIMUM_PAY_WORDS = {
  legend: 'Minimum pay',
  /** The rule, said once above the three fields. */
  hint: 'Each kind on its own: a posting is skipped only when it states pay of that kind, in that currency, below your minimum. Postings that state no pay, a day rate or monthly pay, or pay in another currency still reach you.',
  fields: {
    minFixed: {
      label: 'Minimum fixed price',
      hint: 'For postings with one price for the whole job.',
      example: 'e.g. 500',
    },
    minHourly: {
      label: 'Minimum hourly rate',
      hint: 'For postings paid by the hour.',
      example: 'e.g. 45',
    },
    minYearly: {
      label: 'Minimum yearly salary',
      hint: 'For salaried postings; 150k is 150,000.',
      example: 'e.g. 100k',
    },
  },
  currency: {
    label: 'Currency of your minimums',
    hint: 'The currency of the amounts above, unless one names its own (€45). Pay in another currency is never converted: it reaches you, marked as not compared.',
  },
} as const;

export type MinimumPayField = keyof typeof MINIMUM_PAY_WORDS.fields;
/** The three amounts, in the order every form shows them. */
export const MINIMUM_PAY_FIELDS: readonly MinimumPayField[] = ['minFixed', 'minHourly', 'minYearly'];
