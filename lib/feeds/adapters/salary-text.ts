import { parseAmount } from '../parse-budget';
import type { Budget } from '../posting';

// Longest symbols first: "US$" must not be read as "$" with "US" left over.
const CURRENCY_SYMBOLS: Array<[string, string]> = [
  ['US$', 'USD'],
  ['CA$', 'CAD'],
  ['C$', 'CAD'],
  ['AU$', 'AUD'],
  ['A$', 'AUD'],
  ['NZ$', 'NZD'],
  ['S$', 'SGD'],
  ['$', 'USD'],
  ['€', 'EUR'],
  ['£', 'GBP'],
  ['¥', 'JPY'],
  ['₹', 'INR'],
];
const CURRENCY_CODES = [
  'USD',
  'EUR',
  'GBP',
  'CAD',
  'AUD',
  'NZD',
  'SGD',
  'CHF',
  'NOK',
  'SEK',
  'DKK',
  'PLN',
  'CZK',
  'INR',
  'JPY',
  'BRL',
  'MXN',
  'ZAR',
  'ILS',
  'HKD',
];

const escape = (text: string) => text.replace(/[$]/g, '\\$');
const CUR = `(?:${CURRENCY_SYMBOLS.map(([symbol]) => escape(symbol)).join('|')}|\\b(?:${CURRENCY_CODES.join('|')})\\b)`;
const NUM = String.raw`\d[\d,.]*\d|\d`;
// One amount: currency before or after, a k/M multiplier ("85k", "1M"), never the first letter of a word ("3 months").
const AMOUNT = (n: number) => `(?<c${n}>${CUR})?\\s?(?<n${n}>${NUM})\\s?(?<m${n}>[kKmM](?![a-zA-Z]))?(?:\\s?(?<d${n}>${CUR}))?`;
const SEP = String.raw`\s*(?:-|–|—|to)\s*`;
const HOURLY = String.raw`\/\s*(?:hr|hour|h)\b|per\s+hour\b|an\s+hour\b|hourly\b`;
const YEARLY = String.raw`\/\s*(?:yr|year|y|annum)\b|per\s+(?:year|annum)\b|a\s+year\b|annually\b|yearly\b|p\.?a\.?(?![a-z])`;
const MONTHLY = String.raw`\/\s*(?:mo|month)\b|per\s+month\b|a\s+month\b|monthly\b`;
const SALARY = new RegExp(
  `${AMOUNT(1)}(?:${SEP}${AMOUNT(2)})?(?:\\s*(?:(?<hourly>${HOURLY})|(?<yearly>${YEARLY})|(?<monthly>${MONTHLY})))?`,
  'g',
);

const MAX_AMOUNT = 10_000_000;
const MAX_INPUT = 500;

export type SalaryTextOptions = {
  /** The currency the provider implies when the text names none; without it such text is no salary. */
  defaultCurrency?: string;
};

/**
 * A salary or rate written as text: "$120,000 - $150,000", "€85k–€105k", "$90-$120/hr",
 * "NOK 850k–1M", "£70k + equity". Hourly when the text says so; yearly when it names a year or
 * the amounts are salary-sized (1,000 or more) with no period; anything else (a monthly figure,
 * a bare "30-40", "Competitive") is null rather than a guess. The first span that reads as money wins.
 */
export function parseSalaryText(text: string, options: SalaryTextOptions = {}): Budget | null {
  // A salary is a short phrase: a field a megabyte long is read no further than its start.
  for (const match of text.slice(0, MAX_INPUT).matchAll(SALARY)) {
    const groups = match.groups!;
    const currency = currencyOf(groups.c1 ?? groups.d1 ?? groups.c2 ?? groups.d2) ?? options.defaultCurrency ?? null;
    if (!currency) continue;
    let low = amountOf(groups.n1, groups.m1);
    const high = groups.n2 ? amountOf(groups.n2, groups.m2) : null;
    // "$150-200k": the multiplier written once applies to both ends.
    if (low !== null && high !== null && !groups.m1 && groups.m2 && low < 1000) {
      const scaled = amountOf(groups.n1, groups.m2);
      if (scaled !== null && scaled <= high) low = scaled;
    }
    if (low === null || low <= 0 || low > MAX_AMOUNT || (high !== null && (high <= 0 || high > MAX_AMOUNT))) continue;
    if (groups.monthly) continue;
    const min = high !== null ? Math.min(low, high) : low;
    const max = high !== null ? Math.max(low, high) : low;
    const kind = groups.hourly ? 'hourly' : groups.yearly || max >= 1000 ? 'yearly' : null;
    if (!kind) continue;
    return { amount: min, currency, kind, ...(max > min ? { maxAmount: max } : {}) };
  }
  return null;
}

function amountOf(number: string, multiplier: string | undefined): number | null {
  const value = parseAmount(number);
  if (value === null) return null;
  const factor = !multiplier ? 1 : multiplier.toLowerCase() === 'k' ? 1_000 : 1_000_000;
  return Math.round(value * factor * 100) / 100;
}

function currencyOf(token: string | undefined): string | null {
  if (!token) return null;
  const upper = token.toUpperCase();
  return CURRENCY_SYMBOLS.find(([symbol]) => symbol === upper)?.[1] ?? (CURRENCY_CODES.includes(upper) ? upper : null);
}
