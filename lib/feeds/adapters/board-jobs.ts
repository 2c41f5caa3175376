import { z } from 'zod';
import type { Budget } from '../posting';

/** The string `key` of each object in a list the docs describe as objects; anything else is skipped. */
export function namesOf(list: unknown[] | null | undefined, key: string): string[] {
  return (list ?? []).flatMap((item) => {
    const value = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[key] : undefined;
    return typeof value === 'string' && value.trim() ? [value] : [];
  });
}

/** The non-empty strings of a list the docs describe as strings; anything else is skipped. */
export function stringsOf(list: unknown[] | null | undefined): string[] {
  return (list ?? []).filter((value): value is string => typeof value === 'string' && value.trim() !== '');
}

// The same ceiling the text parser uses (parse-budget.ts): past it, a field is broken, not a salary.
const MAX_AMOUNT = 10_000_000;

/**
 * A salary range a board states in fields, as a Budget (`times` scales a period Scout has no kind
 * for into one it has: a monthly salary × 12 is yearly). Null when the currency is not an
 * ISO 4217 code or no amount is a positive number — the posting's text may still state one.
 */
export function statedSalary(input: {
  min: number | null | undefined;
  max: number | null | undefined;
  currency: string | null | undefined;
  kind: 'hourly' | 'yearly';
  /** How many of the stated period make the Budget's period: 12 for a monthly salary, else 1. */
  times?: number;
}): Budget | null {
  const currency = input.currency?.trim().toUpperCase();
  if (!currency || !/^[A-Z]{3}$/.test(currency)) return null;
  const amounts = [input.min, input.max]
    .filter((n): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0)
    .map((n) => n * (input.times ?? 1));
  if (amounts.length === 0 || amounts.some((n) => n > MAX_AMOUNT)) return null;
  const amount = Math.min(...amounts);
  const maxAmount = Math.max(...amounts);
  return { amount, currency, kind: input.kind, ...(maxAmount > amount ? { maxAmount } : {}) };
}

/** A provider's own origin, or the operator's (`baseUrl`: the local stack, tests), without a trailing slash. */
export function originOf(baseUrl: string | undefined, fallback: string): string {
  return (baseUrl ?? fallback).replace(/\/+$/, '');
}

/** The `baseUrl` param every board kind takes. */
export const baseUrlParam = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional();

/** A board's name in its URL path (Greenhouse board token, Lever site, Ashby job board name). */
export const boardName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'must be the name in the board URL: letters, digits, . _ -');

/** The employer's name on the cards, when the API does not give it. */
export const companyParam = z.string().trim().min(1).max(200).optional();
