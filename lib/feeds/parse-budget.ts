import { z } from 'zod';
import type { Budget } from './posting';

const CURRENCY_SYMBOLS: Record<string, string> = {
  US$: 'USD',
  CA$: 'CAD',
  AU$: 'AUD',
  A$: 'AUD',
  $: 'USD',
  '€': 'EUR',
  '£': 'GBP',
  '₹': 'INR',
  '¥': 'JPY',
};
const CURRENCY_CODES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'INR', 'CHF', 'JPY', 'NZD', 'SGD'];

const CUR = `(?:US\\$|CA\\$|AU\\$|A\\$|\\$|€|£|₹|¥|\\b(?:${CURRENCY_CODES.join('|')})\\b)`;
const NUM = String.raw`\d[\d.,]*(?:\s?k\b)?`;
const MONEY = `(?:${CUR}\\s?${NUM}|${NUM}\\s?${CUR})`;
const SEP = String.raw`\s*(?:-|–|—|to)\s*`;
// A bare number counts only right after an explicit label, and not when a
// word follows it ("Budget: 2 weeks").
const BARE = `${NUM}(?![\\d.,]*\\s*[a-z])`;
const RANGE = `(?:${MONEY}(?:${SEP}(?:${MONEY}|${NUM}))?|${NUM}${SEP}${MONEY})`;
const LABELLED_RANGE = `(?:${RANGE}|${BARE}(?:${SEP}${BARE})?)`;
const PER_HOUR = String.raw`\s*(?:\/\s*(?:hr|hour|h)\b|per\s+hour\b|an\s+hour\b|hourly\b)`;
const FIXED = String.raw`\s*(?:fixed(?:[- ]price)?\b)`;

// Most explicit first: a labelled hourly range beats a loose "$50/hr".
const PATTERNS: Array<{ kind: Budget['kind'] | 'label'; regex: RegExp }> = [
  { kind: 'hourly', regex: new RegExp(`\\bhourly(?:\\s+(?:range|rate|budget|pay))?\\s*:\\s*(${LABELLED_RANGE})`, 'i') },
  { kind: 'label', regex: new RegExp(`\\b(?:budget|fixed[- ]price|price)\\s*:\\s*(${LABELLED_RANGE})(${PER_HOUR})?`, 'i') },
  { kind: 'hourly', regex: new RegExp(`(${RANGE})${PER_HOUR}`, 'i') },
  { kind: 'fixed', regex: new RegExp(`(${RANGE})${FIXED}`, 'i') },
];

const MAX_AMOUNT = 10_000_000;

/**
 * Reads a budget out of posting text: "Budget: $1,500", "Hourly Range:
 * $30.00-$60.00", "€800 fixed", "$45/hr". Of a range it keeps the upper
 * bound: the most the client says they would pay, which is what a
 * subscriber's minimum budget is compared with.
 */
export function parseBudgetText(text: string): Budget | null {
  for (const { kind, regex } of PATTERNS) {
    const match = regex.exec(text);
    if (!match) continue;
    const amount = upperAmount(match[1]);
    if (amount === null) continue;
    const resolvedKind = kind === 'label' ? (match[2] ? 'hourly' : 'fixed') : kind;
    return { amount, currency: findCurrency(match[1]) ?? 'USD', kind: resolvedKind };
  }
  return null;
}

const scoutBudgetSchema = z.object({
  amount: z.number().positive().max(MAX_AMOUNT),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/)
    .optional(),
  kind: z.enum(['fixed', 'hourly']).optional(),
});

/** The JSON Feed extension `_scout.budget`; anything malformed is ignored. */
export function parseScoutBudget(extension: unknown): Budget | null {
  if (typeof extension !== 'object' || extension === null) return null;
  const parsed = scoutBudgetSchema.safeParse((extension as { budget?: unknown }).budget);
  if (!parsed.success) return null;
  const { amount, currency, kind } = parsed.data;
  return { amount, currency: currency?.toUpperCase() ?? 'USD', kind: kind ?? 'fixed' };
}

function upperAmount(span: string): number | null {
  const amounts = [...span.matchAll(new RegExp(NUM, 'gi'))].map((m) => parseAmount(m[0])).filter((n): n is number => n !== null);
  if (amounts.length === 0) return null;
  const amount = Math.max(...amounts);
  return amount > 0 && amount <= MAX_AMOUNT ? amount : null;
}

/** "1,500.50", "1.500", "2.5k", "30.00" → number. */
export function parseAmount(raw: string): number | null {
  let text = raw.trim().toLowerCase();
  const thousands = text.endsWith('k');
  if (thousands) text = text.slice(0, -1).trim();
  text = text.replace(/[.,]+$/, '');
  const value = Number(normalizeSeparators(text));
  if (!Number.isFinite(value)) return null;
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

function findCurrency(span: string): string | null {
  const match = new RegExp(CUR, 'i').exec(span);
  if (!match) return null;
  const token = match[0].toUpperCase();
  return CURRENCY_SYMBOLS[token] ?? (CURRENCY_CODES.includes(token) ? token : null);
}
