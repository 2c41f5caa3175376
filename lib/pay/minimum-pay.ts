import { z } from 'zod';
import { formatBudget, formatMoney } from './format-pay';
import type { Budget } from './pay';

/**
 * What a subscriber asks to be paid: at most one minimum per kind of pay they can set — a fixed
 * price, an hourly rate, a yearly salary — each with its own currency. Stored on users/{uid} as
 * `minPay`; daily and monthly pay have no minimum of their own and are never compared.
 */
export const MINIMUM_PAY_KINDS = ['fixed', 'hourly', 'yearly'] as const;
export type MinimumPayKind = (typeof MINIMUM_PAY_KINDS)[number];

/** The largest minimum accepted: above any real price or salary, so a typo of zeros is refused. */
export const MAX_MINIMUM_PAY = 10_000_000;
/** The currency of a minimum when the subscriber names none, and of the old `minBudget`. */
export const DEFAULT_MINIMUM_CURRENCY = 'USD';

// Read on first use, not on import: a module that only needs the currency list pays nothing for it.
let knownCurrencies: Set<string> | null = null;
export const isCurrencyCode = (code: string) => (knownCurrencies ??= new Set(Intl.supportedValuesOf('currency'))).has(code);

/** The currencies the forms offer first; any other ISO 4217 code is accepted from JSON, the CLI and the import. */
export const COMMON_CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'CHF', 'INR', 'SEK', 'PLN', 'BRL', 'JPY'] as const;

export const currencyCodeSchema = z
  .string()
  .transform((code) => code.trim().toUpperCase())
  .refine(isCurrencyCode, 'must be a currency code, like USD or EUR');

export const minimumSchema = z.object({
  amount: z
    .number()
    .nonnegative('must be 0 or more')
    .max(MAX_MINIMUM_PAY, `must be at most ${MAX_MINIMUM_PAY.toLocaleString('en-US')}`),
  currency: currencyCodeSchema,
});
export type Minimum = z.infer<typeof minimumSchema>;

/** The stored shape: every kind present, null when the subscriber set no minimum of it. */
export const minPaySchema = z.object({
  fixed: minimumSchema.nullable().default(null),
  hourly: minimumSchema.nullable().default(null),
  yearly: minimumSchema.nullable().default(null),
});
export type MinPay = z.output<typeof minPaySchema>;

export const NO_MIN_PAY: MinPay = Object.freeze({ fixed: null, hourly: null, yearly: null });

export const hasMinPay = (minPay: MinPay) => MINIMUM_PAY_KINDS.some((kind) => minPay[kind] !== null);

/** The old single minimum, `minBudget`: a fixed price in USD (the only pay it was ever compared with). */
export const minPayOfLegacyBudget = (minBudget: number | null): MinPay =>
  minBudget === null ? NO_MIN_PAY : { ...NO_MIN_PAY, fixed: { amount: minBudget, currency: DEFAULT_MINIMUM_CURRENCY } };

/**
 * A subscriber's minimums from their stored fields: `minPay` when it is there, else an unmigrated
 * document's `minBudget` as the fixed minimum (so nothing changes between a deploy and the
 * migration), else none. A kind that does not read as a minimum reads as none, never as an error.
 */
export function readMinPay(stored: { minPay?: unknown; minBudget?: unknown }): MinPay {
  if (typeof stored.minPay === 'object' && stored.minPay !== null) {
    const raw = stored.minPay as Record<string, unknown>;
    const read = (kind: MinimumPayKind) => {
      const parsed = minimumSchema.safeParse(raw[kind]);
      return parsed.success ? parsed.data : null;
    };
    return { fixed: read('fixed'), hourly: read('hourly'), yearly: read('yearly') };
  }
  return typeof stored.minBudget === 'number' && Number.isFinite(stored.minBudget) ? minPayOfLegacyBudget(stored.minBudget) : NO_MIN_PAY;
}

const sameMinimum = (a: Minimum | null, b: Minimum | null) => a === b || (!!a && !!b && a.amount === b.amount && a.currency === b.currency);
export const sameMinPay = (a: MinPay, b: MinPay) => MINIMUM_PAY_KINDS.every((kind) => sameMinimum(a[kind], b[kind]));

// ----- reading what a person types -----

/**
 * Currency signs a person types before an amount. `$` alone is the dollar of the chosen currency
 * when that is a dollar (CAD, AUD…), US dollars otherwise; the prefixed dollars name their own.
 */
const SIGNS: [sign: string, currency: string][] = [
  ['US$', 'USD'],
  ['CA$', 'CAD'],
  ['C$', 'CAD'],
  ['AU$', 'AUD'],
  ['A$', 'AUD'],
  ['NZ$', 'NZD'],
  ['S$', 'SGD'],
  ['HK$', 'HKD'],
  ['R$', 'BRL'],
  ['$', 'dollar'],
  ['€', 'EUR'],
  ['£', 'GBP'],
  ['¥', 'JPY'],
  ['₹', 'INR'],
  ['₩', 'KRW'],
  ['₺', 'TRY'],
  ['₽', 'RUB'],
  ['₪', 'ILS'],
  ['zł', 'PLN'],
  ['CHF', 'CHF'],
];
const DOLLAR_CURRENCIES = new Set(['USD', 'CAD', 'AUD', 'NZD', 'SGD', 'HKD']);

/** An amount as typed, with the currency its sign or code names (null: it names none). */
export type MoneyText = { amount: number; currency: string | null; sign?: 'dollar' };

/**
 * "1500", "$1,500", "€45", "45 EUR", "150k", "$150K", "1.2M" → the amount and the currency it
 * names; null when the text is not one amount. A comma separates thousands and a point marks
 * decimals, as in the forms' own examples.
 */
export function readMoneyText(text: string): MoneyText | null {
  let rest = text.trim().replace(/\s+/g, ' ');
  let currency: string | null = null;
  let sign: 'dollar' | undefined;
  const code = /^([A-Za-z]{3})\s?(?=[\d.])|(?<=[\d.kKmM])\s?([A-Za-z]{3})$/.exec(rest);
  if (code && isCurrencyCode((code[1] ?? code[2]).toUpperCase())) {
    currency = (code[1] ?? code[2]).toUpperCase();
    rest = rest.replace(code[0], '').trim();
  }
  for (const [mark, named] of SIGNS) {
    if (currency === null && rest.toUpperCase().startsWith(mark.toUpperCase())) {
      rest = rest.slice(mark.length).trim();
      if (named === 'dollar') sign = 'dollar';
      else currency = named;
      break;
    }
  }
  // A minus is read, so that "-5" is refused as below 0 rather than as not an amount.
  const number = /^(-)?(\d{1,3}(?:,\d{3})+|\d+)?(\.\d+)?\s?([kKmM])?$/.exec(rest);
  if (!number || (!number[2] && !number[3])) return null;
  const scale = number[4] ? (number[4].toLowerCase() === 'k' ? 1_000 : 1_000_000) : 1;
  const amount = Math.round(Number(`${number[1] ?? ''}${(number[2] ?? '0').replace(/,/g, '')}${number[3] ?? ''}`) * scale * 100) / 100;
  return Number.isFinite(amount) ? { amount, currency, ...(sign ? { sign } : {}) } : null;
}

/** An amount's currency: what its text names, else the chosen one (a `$` keeps a chosen dollar). */
export function currencyOf(money: MoneyText, chosen: string): string {
  if (money.currency) return money.currency;
  if (money.sign === 'dollar') return DOLLAR_CURRENCIES.has(chosen) ? chosen : 'USD';
  return chosen;
}

/** A minimum as any form, the CLI or the import sends it: "" or absent → none; a number; money text. */
export const minimumTextSchema = z.preprocess(
  (value) => {
    if (value === undefined || value === null) return null;
    if (typeof value === 'number') return { amount: value, currency: null };
    if (typeof value !== 'string') return value;
    if (value.trim() === '') return null;
    return readMoneyText(value) ?? value;
  },
  z
    .object(
      {
        amount: minimumSchema.shape.amount,
        currency: z.string().nullable(),
        sign: z.literal('dollar').optional(),
      },
      { error: 'must be an amount, like 500, $1,500 or 150k' },
    )
    .nullable(),
);

/** "" or absent → USD; a code in any case. */
export const minCurrencySchema = z.preprocess(
  (value) =>
    value === undefined || value === null || (typeof value === 'string' && value.trim() === '') ? DEFAULT_MINIMUM_CURRENCY : value,
  z.string({ error: 'must be a currency code, like USD or EUR' }).pipe(currencyCodeSchema),
);

/**
 * The input fields of the minimums, the same for every way in (signup, preferences, preview, the
 * CLI, the import). `minBudget` is the old single field, still accepted: a fixed price in USD.
 */
export const minPayInputShape = {
  minFixed: minimumTextSchema,
  minHourly: minimumTextSchema,
  minYearly: minimumTextSchema,
  minCurrency: minCurrencySchema,
  minBudget: minimumTextSchema,
};
export const MIN_PAY_INPUT_FIELDS = ['minFixed', 'minHourly', 'minYearly', 'minCurrency', 'minBudget'] as const;

type ParsedMinimum = z.output<typeof minimumTextSchema>;
export type MinPayInput = {
  minFixed?: ParsedMinimum;
  minHourly?: ParsedMinimum;
  minYearly?: ParsedMinimum;
  minCurrency?: string;
  minBudget?: ParsedMinimum;
};

/** The minimums an input asks for; `minFixed` wins over the old `minBudget` when both are sent. */
export function minPayOfInput(input: MinPayInput): MinPay {
  const chosen = input.minCurrency ?? DEFAULT_MINIMUM_CURRENCY;
  const of = (money: ParsedMinimum | undefined, currency: string): Minimum | null =>
    money ? { amount: money.amount, currency: currencyOf(money, currency) } : null;
  return {
    fixed: of(input.minFixed, chosen) ?? of(input.minBudget, DEFAULT_MINIMUM_CURRENCY),
    hourly: of(input.minHourly, chosen),
    yearly: of(input.minYearly, chosen),
  };
}

/**
 * A parsed form with its typed minimums replaced by the `minPay` they ask for: what signup,
 * preferences and the preview hand on, so nothing past the boundary sees the typed fields.
 */
export function withMinPay<T extends MinPayInput>(input: T): Omit<T, keyof MinPayInput> & { minPay: MinPay } {
  const { minFixed: _fixed, minHourly: _hourly, minYearly: _yearly, minCurrency: _currency, minBudget: _budget, ...rest } = input;
  return { ...rest, minPay: minPayOfInput(input) };
}

/**
 * The subscriber's chosen currency: the first minimum's (the form's one currency select), else the
 * default. A query's pay clause that names no currency (`rate>=60`) compares in it.
 */
export const chosenCurrencyOf = (minPay: MinPay): string =>
  MINIMUM_PAY_KINDS.map((kind) => minPay[kind]?.currency).find(Boolean) ?? DEFAULT_MINIMUM_CURRENCY;

/** The minimums as a form shows them back: amounts as plain text and one currency (the first one set). */
export function minPayFormValues(minPay: MinPay): { minFixed: string; minHourly: string; minYearly: string; minCurrency: string } {
  const text = (m: Minimum | null) => (m ? String(m.amount) : '');
  // A minimum in another currency than the first keeps its own: its sign-less amount would be read in the form's currency.
  const currency = chosenCurrencyOf(minPay);
  const withCode = (m: Minimum | null) => (m && m.currency !== currency ? `${m.amount} ${m.currency}` : text(m));
  return {
    minFixed: withCode(minPay.fixed),
    minHourly: withCode(minPay.hourly),
    minYearly: withCode(minPay.yearly),
    minCurrency: currency,
  };
}

// ----- the rule -----

const PER_KIND: Record<MinimumPayKind, string> = { fixed: ' fixed-price', hourly: '/hour', yearly: '/year' };

/** "$500 fixed-price", "$50/hour", "€60,000/year": a minimum as its reason and the pages name it. */
export const formatMinimum = (kind: MinimumPayKind, minimum: Minimum) =>
  `${formatMoney(minimum.amount, minimum.currency, Number.isInteger(minimum.amount) ? 0 : 2)}${PER_KIND[kind]}`;

/** Every minimum set, named ("$100,000/year, $50/hour"); '' when none is. */
export const describeMinPay = (minPay: MinPay) =>
  MINIMUM_PAY_KINDS.flatMap((kind) => (minPay[kind] ? [formatMinimum(kind, minPay[kind])] : [])).join(', ');

/**
 * What a posting's pay says against the subscriber's minimums:
 * - `none`: it states no pay, or pay of a kind they set no minimum for (other kinds are never compared);
 * - `below`: same kind, same currency, and even the top of its range is under the minimum: left out;
 * - `meets`: same kind, same currency, the top of its range reaches the minimum;
 * - `not_compared`: same kind but another currency, or none stated: kept, never converted, and said.
 */
export type PayCheck =
  { outcome: 'none' } | { outcome: 'meets' | 'below' | 'not_compared'; kind: MinimumPayKind; minimum: Minimum; reason: string };

export function checkPay(minPay: MinPay, budget: Budget | null | undefined): PayCheck {
  if (!budget || !(MINIMUM_PAY_KINDS as readonly string[]).includes(budget.kind)) return { outcome: 'none' };
  const kind = budget.kind as MinimumPayKind;
  const minimum = minPay[kind];
  if (!minimum) return { outcome: 'none' };
  const yours = `your ${formatMinimum(kind, minimum)} minimum`;
  if (budget.currency !== minimum.currency) {
    const which = budget.currency ? `pay in ${budget.currency}` : 'pay with no stated currency';
    return { outcome: 'not_compared', kind, minimum, reason: `${which} not compared with ${yours}` };
  }
  const pay = formatBudget(budget);
  const top = budget.maxAmount ?? budget.amount;
  return top < minimum.amount
    ? { outcome: 'below', kind, minimum, reason: `pay ${pay} below ${yours}` }
    : { outcome: 'meets', kind, minimum, reason: `pay ${pay} meets ${yours}` };
}
