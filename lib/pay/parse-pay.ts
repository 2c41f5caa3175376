import type { Budget, PayKind } from './pay';

/**
 * The one reader of pay for every kind of source: `statedPay` for pay a board states in fields,
 * `parsePayText` for pay written as text. Callers try fields first and text second.
 */

// Past this a figure is a broken field or a company's funding, not what one job pays.
export const MAX_PAY_AMOUNT = 10_000_000;

// Longest symbols first: "US$" must not be read as "$" with "US" left over.
const CURRENCY_SYMBOLS: Array<[string, string]> = [
  ['US$', 'USD'],
  ['CA$', 'CAD'],
  ['C$', 'CAD'],
  ['AU$', 'AUD'],
  ['A$', 'AUD'],
  ['NZ$', 'NZD'],
  ['HK$', 'HKD'],
  ['S$', 'SGD'],
  ['R$', 'BRL'],
  ['$', 'USD'],
  ['€', 'EUR'],
  ['£', 'GBP'],
  ['¥', 'JPY'],
  ['₹', 'INR'],
];
// Codes are matched in capitals only: lower-case "try", "all" or "eur" are words, not money.
const CURRENCY_CODES = [
  'USD',
  'EUR',
  'GBP',
  'CAD',
  'AUD',
  'NZD',
  'SGD',
  'HKD',
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
];

const SYMBOL = CURRENCY_SYMBOLS.map(([symbol]) => symbol.replace('$', '\\$')).join('|');
const CODE = `\\b(?:${CURRENCY_CODES.join('|')})\\b`;
const CUR = `(?:${SYMBOL}|${CODE})`;
// Every quantifier is bounded, so one attempt at a position costs a constant: a scan of the whole
// text is linear whatever it holds (a 100,000-character run of digits or commas included).
const NUMBER = String.raw`\d{1,3}(?:[,.\u00a0\u202f]\d{3}){1,3}(?:[.,]\d{1,2})?|\d{1,9}(?:[.,]\d{1,2})?`;
const MULTIPLIER = String.raw`k|K|[mM](?:illion)?|[bB](?:illion|n)?`;
const AMOUNT = new RegExp(
  `(?:(?<cur>${CUR})[ \\u00a0]?)?(?<num>${NUMBER})(?:[ \\u00a0]?(?<mult>${MULTIPLIER})(?![A-Za-z]))?(?:[ \\u00a0]?(?<after>${CODE}|€|£))?`,
  'g',
);

// Between the two ends of a range: a dash, "to", "and" ("between $X and $Y").
// A period may sit on both ends: "$130,000/year - $150,000/year".
const RANGE_JOIN = /^(?:\s?\/\s?[a-z]{1,5})?\s{0,3}(?:-|–|—|‐|‑|−|to|and)\s{0,3}$/i;
// The period said right after the amount: "/hr", "per year", "an hour", "p.a.", "fixed".
const PERIOD_AFTER = new RegExp(
  String.raw`^[\s+]{0,3}(?:(?:\(?(?:${CURRENCY_CODES.join('|')})\)?|euros?|(?:US\s)?dollars?|pounds?)\s{0,2})?(?:(?:\/|\bper\b|\ban?\b|\beach\b)\s{0,2}(?<unit>hours?|hourly|hr|h|days?|daily|d|months?|monthly|mo|years?|yearly|annually|yr|y|annum|weeks?|weekly|wk)\b|(?<word>hourly|daily|weekly|monthly|yearly|annually|annual|p\.?\s?a\.?|fixed(?:[- ]price)?|total(?!\s+comp)|salary|base|OTE)(?![a-z]))`,
  'i',
);
const UNIT_KINDS: Record<string, PayKind | 'weekly'> = {
  h: 'hourly',
  hr: 'hourly',
  hour: 'hourly',
  hours: 'hourly',
  hourly: 'hourly',
  d: 'daily',
  day: 'daily',
  days: 'daily',
  daily: 'daily',
  mo: 'monthly',
  month: 'monthly',
  months: 'monthly',
  monthly: 'monthly',
  y: 'yearly',
  yr: 'yearly',
  year: 'yearly',
  years: 'yearly',
  annum: 'yearly',
  yearly: 'yearly',
  annually: 'yearly',
  annual: 'yearly',
  pa: 'yearly',
  wk: 'weekly',
  weekly: 'weekly',
  total: 'fixed',
  week: 'weekly',
  weeks: 'weekly',
  fixed: 'fixed',
};

// What the words just before an amount say about it ("Hourly Range:", "Budget:", "Annual Salary:").
const LABEL_WINDOW = 60;
const LABELS: Array<[PayKind | 'weekly', RegExp]> = [
  ['hourly', /\b(?:hourly(?:\s+(?:range|rate|budget|pay|wage))?|(?:rate|pay|wage)\s+per\s+hour)\b[^.\d]{0,25}$/i],
  ['daily', /\b(?:day|daily)\s+rate\b[^.\d]{0,25}$/i],
  ['monthly', /\bmonthly\s+(?:salary|pay|rate|compensation|stipend|budget)\b[^.\d]{0,25}$/i],
  ['yearly', /\b(?:annual(?:ized)?|yearly)\s+(?:base\s+)?(?:salary|pay|compensation|base|range|OTE)\b[^.\d]{0,40}$/i],
  ['weekly', /\bweekly\s+(?:salary|pay|rate|stipend)\b[^.\d]{0,25}$/i],
  ['fixed', /\b(?:budget|fixed[- ]price|price)(?:\s+range)?\s{0,2}:[\s•*-]{0,4}$/i],
];
// Money is pay only where the text says so: one of these words near the amount.
const PAY_WORDS =
  /\b(?:salary|salaries|compensation|comp|pay|paying|paid|wages?|base|OTE|earn(?:ings)?|rate|range|package|remuneration|stipend|budget|TC|hourly|annual(?:ly)?)\b/i;
// Words that make a sum a company's figure or a perk rather than a job's pay: said just before it
// ("raised $50M", "funding for compute (~$15k/month)") or just after it ("$1,000 annually for education").
const NOT_PAY_BEFORE =
  /\b(?:raised?|raising|funding|funded|valuation|valued|revenue|ARR|investors?|investment|grants?|prizes?|bounty|savings|saved|loans?|assets|AUM|GMV|benefit\s+of|stipend\s+for|allowance\s+of|budget\s+(?:of|for)|reimburse\w*|HRA|HSA|FSA|fertility|coverage|(?:working|development|learning|training|conference|equipment|office|technology|travel|education|wellness|phone|internet|coworking)\s+(?:budget|stipend|allowance))\b[^.\d]{0,25}$/i;
const NOT_PAY_AFTER =
  /^[^.]{0,40}\b(?:raised|in\s+funding|series\s+[a-f]|seed|valuation|revenue|ARR|investors?|customers|users|transactions|allowance|reimburse\w*|(?:signing|sign-on|joining|referral|relocation)\s+bonus|lifetime|benefits?\s+(?:for|towards)|(?:for|towards)\s+(?:[\w-]+\s+){0,2}(?:education|learning|training|equipment|wellness|wellbeing|courses?|conferences?)|home\s+office|per\s+employee|for\s+compute)\b|^\s{0,2}(?:bonus|budget\s+for)\b/i;
const NEAR = 40;
const RETIREMENT_PLAN = /^(?:401|403|457)\s?\(?[kb]\)?/i;

export type PayTextOptions = {
  /**
   * `field`: text that holds pay and little else (Remotive's `salary`, a field of an HN first line),
   * read in its first 500 characters. `description` (the default): a whole posting, where money
   * counts as pay only where the text says it is pay.
   */
  within?: 'field' | 'description';
  /** The currency a provider documents for text that names none (Remotive: USD); never a guess. */
  defaultCurrency?: string;
};

const MAX_FIELD = 500;

/** One amount as written: where it stands, its figure, and the currency written before or after it. */
type Amount = { start: number; end: number; value: number | null; multiplier: string | null; symbol: string | null; code: string | null };
/** One reading of pay and how explicitly the text states it: the most explicit reading wins. */
type Candidate = { budget: Budget; strength: number };

/**
 * Pay written as text: "Budget: $1,500", "Hourly Range: $30.00-$60.00", "€800 fixed",
 * "$18 - $22/hr", "Annual Salary: $265,000 — $365,000 USD", "$75k - $105k salary",
 * "$60,000 - $97,000/year", "£450 per day", "$8,000/month", "150-250k". A range keeps both ends
 * (`amount` the lower, `maxAmount` the top). The kind comes from the period said after the amount,
 * else from the label before it, else a salary-sized sum (1,000 or more in a field, 10,000 or more
 * in a description) is yearly; anything else is no pay rather than a guess. A currency comes from a
 * symbol or ISO code on either end, else `defaultCurrency`, else it is null. Of several readings,
 * the most explicitly stated wins; among equals, the first.
 */
export function parsePayText(text: string, options: PayTextOptions = {}): Budget | null {
  const inField = options.within === 'field';
  const input = inField ? text.slice(0, MAX_FIELD) : text;
  const amounts = readAmounts(input);
  let best: Candidate | null = null;
  for (let i = 0; i < amounts.length; i++) {
    const low = amounts[i];
    const next = amounts[i + 1];
    const high = next && RANGE_JOIN.test(input.slice(low.end, next.start)) ? next : null;
    if (high) i++;
    const candidate = readCandidate({ text: input, low, high, inField, defaultCurrency: options.defaultCurrency ?? null });
    if (candidate && (!best || candidate.strength > best.strength)) best = candidate;
  }
  return best?.budget ?? null;
}

function readAmounts(text: string): Amount[] {
  const amounts: Amount[] = [];
  for (const match of text.matchAll(AMOUNT)) {
    if (!standsAlone(text, match)) continue;
    const { cur, num, mult, after } = match.groups!;
    const value = parseAmount(num);
    amounts.push({
      start: match.index,
      end: match.index + match[0].length,
      value: value === null ? null : Math.round(value * multiplierOf(mult) * 100) / 100,
      multiplier: mult ?? null,
      symbol: cur ?? null,
      code: after ?? null,
    });
  }
  return amounts;
}

/** What the words around an amount say: the period after it, the label before it, whether they speak of pay. */
function readContext(text: string, start: number, end: number) {
  const before = text.slice(Math.max(0, start - LABEL_WINDOW), start);
  // What follows counts up to the end of its sentence: the next line's words are about the next line.
  const after = text.slice(end, end + NEAR).split(/[.;\n](?!\d)/)[0];
  const period = PERIOD_AFTER.exec(after)?.groups;
  const periodWord = (period?.unit ?? period?.word ?? '').toLowerCase().replace(/\W/g, '');
  const periodKind: PayKind | 'weekly' | undefined = periodWord.startsWith('fixed') ? 'fixed' : UNIT_KINDS[periodWord];
  const labelKind = LABELS.find(([, label]) => label.test(before))?.[0];
  // "$75k - $105k salary": a pay word right after says it is pay, though not which kind.
  const said = labelKind !== undefined || periodKind !== undefined || /^(?:salary|base|ote)$/.test(periodWord);
  const payWordBefore = PAY_WORDS.test(before.slice(-NEAR));
  return { before, after, periodKind, labelKind, said, payWordBefore, payWordNear: said || payWordBefore || PAY_WORDS.test(after) };
}

function readCandidate(input: {
  text: string;
  low: Amount;
  high: Amount | null;
  inField: boolean;
  defaultCurrency: string | null;
}): Candidate | null {
  const { text, low, high, inField } = input;
  const ends = high ? [low, high] : [low];
  if (ends.some((end) => end.multiplier && /^b/i.test(end.multiplier))) return null;
  const range = rangeOf(low, high);
  if (!range) return null;
  const { amount, top } = range;

  // A code after an amount names which dollar a bare "$" was: "$1800 - $2200 AUD".
  const stated = ends.map((end) => currencyOf(end.code)).find(Boolean) ?? ends.map((end) => currencyOf(end.symbol)).find(Boolean) ?? null;
  const context = readContext(text, low.start, (high ?? low).end);
  const hasMultiplier = ends.some((end) => end.multiplier);
  if (inField) {
    if (!stated && !input.defaultCurrency && !context.said && !hasMultiplier) return null;
    // A field of an HN first line may be the company's news rather than pay: "$5M raised".
    if (NOT_PAY_BEFORE.test(context.before) || NOT_PAY_AFTER.test(context.after)) return null;
  } else if (!saysPayInText({ context, stated, amounts: high ? [amount, top] : [amount], isRange: high !== null, ends })) {
    return null;
  }
  // "Budget: 2 weeks": a bare number followed by a word is a count of something else.
  if (!stated && !hasMultiplier && !context.periodKind && /^\s*[A-Za-z]/.test(context.after)) return null;

  const kind = context.periodKind ?? context.labelKind ?? (top >= (inField ? 1_000 : 10_000) ? 'yearly' : null);
  if (!kind) return null;
  // Hourly rates are not thousands, nor yearly salaries a few hundred: such a reading is wrong.
  if ((kind === 'hourly' && top > 5_000) || (kind === 'yearly' && top < (inField ? 1_000 : 5_000)) || (kind === 'weekly' && top < 100)) {
    return null;
  }
  // A week has no kind of its own: 52 of them are a year, as for pay stated in fields.
  const times = kind === 'weekly' ? 52 : 1;
  const budget: Budget = {
    amount: amount * times,
    currency: stated ?? input.defaultCurrency,
    kind: kind === 'weekly' ? 'yearly' : kind,
    ...(top > amount ? { maxAmount: top * times } : {}),
  };
  const strength =
    (context.labelKind ? 2 : 0) + (context.periodKind ? 2 : 0) + (stated ? 1 : 0) + (high ? 1 : 0) + (context.payWordNear ? 1 : 0);
  return { budget, strength };
}

/** Both ends of a range, the multiplier written once applying to both ("$150-200k"); null unless it runs upwards. */
function rangeOf(low: Amount, high: Amount | null): { amount: number; top: number } | null {
  let amount = low.value;
  const top = high ? high.value : amount;
  if (amount === null || top === null) return null;
  if (high && !low.multiplier && high.multiplier && amount < 1_000) {
    const scaled = Math.round(amount * multiplierOf(high.multiplier) * 100) / 100;
    if (scaled <= top) amount = scaled;
  }
  // "$60,675- $101, 125" or "$1M - $80": a range that runs downwards is a typo, not pay.
  if (amount <= 0 || top < amount || top > MAX_PAY_AMOUNT) return null;
  return { amount, top };
}

/** In running text, money is pay only where the text says so, and never a company's figure or a perk. */
function saysPayInText(input: {
  context: ReturnType<typeof readContext>;
  stated: string | null;
  amounts: number[];
  isRange: boolean;
  ends: Amount[];
}): boolean {
  const { context, stated, amounts } = input;
  // A bare number is pay only after a pay word: "3–5 a week" counts calls.
  if (!stated && !context.payWordBefore) return false;
  // Without a pay word, only a salary-sized range in a currency reads as pay ("€46,728 - €62,953").
  if (!context.payWordNear && !(stated && input.isRange && amounts[0] >= 10_000)) return false;
  if (NOT_PAY_BEFORE.test(context.before) || NOT_PAY_AFTER.test(context.after)) return false;
  // Millions are a company's figures ("$100M per year" of revenue) unless a pay label says otherwise.
  if (input.ends.some((end) => end.multiplier && /^m/i.test(end.multiplier)) && !context.labelKind) return false;
  return stated !== null || !isYearRange(amounts);
}

/** An amount that is not part of something longer: a version, a date, a percentage, 401(k). */
function standsAlone(text: string, match: RegExpMatchArray): boolean {
  const { cur, mult, after } = match.groups!;
  const start = match.index!;
  const end = start + match[0].length;
  const previous = text[start - 1] ?? '';
  const following = text.slice(end, end + 2);
  if (!cur && /[\w.,/#]/.test(previous)) return false;
  if (/^(?:[\d%]|[.,]\d)/.test(following)) return false;
  if (!mult && !after && /^[A-Za-z]/.test(following)) return false;
  return !RETIREMENT_PLAN.test(text.slice(start + (cur?.length ?? 0), end + 3).trim());
}

function isYearRange(amounts: number[]): boolean {
  return amounts.every((n) => Number.isInteger(n) && n >= 1900 && n <= 2100);
}

function multiplierOf(multiplier: string | undefined | null): number {
  const m = multiplier?.toLowerCase();
  return !m ? 1 : m === 'k' ? 1_000 : m.startsWith('m') ? 1_000_000 : 1_000_000_000;
}

function currencyOf(token: string | null): string | null {
  if (!token) return null;
  const upper = token.toUpperCase();
  return CURRENCY_SYMBOLS.find(([symbol]) => symbol === upper)?.[1] ?? (CURRENCY_CODES.includes(upper) ? upper : null);
}

/** "1,500.50", "1.500", "1.500,50", "30.00", "2.5k", "150 000" → the number; null when it is none. */
export function parseAmount(raw: string): number | null {
  let text = raw
    .trim()
    .toLowerCase()
    .replace(/[\u00a0\u202f]/g, ',');
  const thousands = text.endsWith('k');
  if (thousands) text = text.slice(0, -1).trim();
  text = text.replace(/[.,]+$/, '');
  const value = Number(normalizeSeparators(text));
  if (!Number.isFinite(value) || text === '') return null;
  return Math.round((thousands ? value * 1000 : value) * 100) / 100;
}

function normalizeSeparators(text: string): string {
  const lastComma = text.lastIndexOf(',');
  const lastDot = text.lastIndexOf('.');
  if (lastComma !== -1 && lastDot !== -1) {
    // Both present: whichever comes last is the decimal separator.
    const decimal = lastComma > lastDot ? ',' : '.';
    const group = decimal === ',' ? '.' : ',';
    return text.split(group).join('').replace(decimal, '.');
  }
  const separator = lastComma !== -1 ? ',' : lastDot !== -1 ? '.' : null;
  if (separator === null) return text;
  const parts = text.split(separator);
  const isGrouping = parts.length > 2 || parts[1].length === 3;
  return isGrouping ? parts.join('') : parts.join('.');
}

/** The periods boards name in their pay fields, in Scout's kinds; `times` turns a week into a year. */
export type StatedPeriod = PayKind | 'weekly';

/**
 * Pay a board states in fields: a minimum, a maximum, a currency and a period. Either bound may be
 * missing, zero or negative (boards use 0 for "not given"): the other is the amount. A currency
 * that is not an ISO 4217 code is null (never guessed) unless `defaultCurrency` is what the
 * provider documents. A week has no kind of its own and is 52 to the year. Null when no bound is a
 * positive number or one is absurd — the posting's text may still state pay.
 */
export function statedPay(input: {
  min: number | string | null | undefined;
  max: number | string | null | undefined;
  currency: string | null | undefined;
  period: StatedPeriod;
  defaultCurrency?: string | null;
}): Budget | null {
  const code = input.currency?.trim().toUpperCase();
  const currency = code && /^[A-Z]{3}$/.test(code) ? code : (input.defaultCurrency ?? null);
  const times = input.period === 'weekly' ? 52 : 1;
  const kind: PayKind = input.period === 'weekly' ? 'yearly' : input.period;
  const amounts = [input.min, input.max]
    .map((n) => (typeof n === 'string' && /^\s*\d{1,12}(?:\.\d{1,4})?\s*$/.test(n) ? Number(n) : n))
    .filter((n): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0)
    .map((n) => Math.round(n * times * 100) / 100);
  if (amounts.length === 0 || amounts.some((n) => n > MAX_PAY_AMOUNT)) return null;
  const amount = Math.min(...amounts);
  const maxAmount = Math.max(...amounts);
  return { amount, currency, kind, ...(maxAmount > amount ? { maxAmount } : {}) };
}
