import { z } from 'zod';
import type { Parsed } from './command';

export const invalid = (message: string): Parsed<never> => ({ kind: 'invalid', message });

/**
 * Runs node:util parseArgs and turns its own usage errors (unknown option, missing value) into
 * a message instead of a thrown TypeError; anything else is a bug and still throws.
 */
export function readArgv<T>(parse: () => T): { ok: true; value: T } | { ok: false; message: string } {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) return { ok: false, message: (error as Error).message };
    throw error;
  }
}

/** Exactly `names.length` positionals, named in the message when one is missing or extra. */
export function expectPositionals(positionals: string[], names: string[]): string | null {
  if (positionals.length < names.length) return `missing ${names[positionals.length]}`;
  if (positionals.length > names.length) return `unexpected argument "${positionals[names.length]}"`;
  return null;
}

/** "react, next.js; node" → ["react", "next.js", "node"]: the same separators as the CSV import. */
export const splitList = (text: string) =>
  text
    .split(/[;|,]/)
    .map((item) => item.trim())
    .filter(Boolean);

const emailSchema = z.email().max(254);

/** An email argument, checked before anything is read or written. */
export function checkEmail(text: string): string | null {
  return emailSchema.safeParse(text.trim()).success ? null : `<email> "${text}" is not an email address`;
}
