import { z } from 'zod';

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
