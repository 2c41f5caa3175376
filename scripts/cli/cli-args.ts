import { parseArgs } from 'node:util';
import { z } from 'zod';
import { normaliseEmail } from '../../lib/subscribers/subscriber';
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

/** `<email>` and `--help`, nothing else: the shape of every command that acts on one subscriber. */
export function parseEmailArgs(argv: string[]): Parsed<{ email: string }> {
  const read = readArgv(() =>
    parseArgs({ args: argv, allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' } } }),
  );
  if (!read.ok) return invalid(read.message);
  if (read.value.values.help) return { kind: 'help' };
  const positionalError = expectPositionals(read.value.positionals, ['<email>']);
  if (positionalError) return invalid(positionalError);
  const email = read.value.positionals[0];
  const emailError = checkEmail(email);
  return emailError ? invalid(emailError) : { kind: 'args', args: { email: normaliseEmail(email) } };
}

/** `[--limit N]` and `--help`, nothing else: N a whole number in [1, max], `fallback` when absent. */
export function parseLimitArgs(argv: string[], bounds: { fallback: number; max: number }): Parsed<{ limit: number }> {
  const read = readArgv(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { limit: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }),
  );
  if (!read.ok) return invalid(read.message);
  const { values, positionals } = read.value;
  if (values.help) return { kind: 'help' };
  const positionalError = expectPositionals(positionals, []);
  if (positionalError) return invalid(positionalError);
  const limit = values.limit === undefined ? bounds.fallback : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > bounds.max) return invalid(`--limit must be a whole number from 1 to ${bounds.max}`);
  return { kind: 'args', args: { limit } };
}

/** The most documents a migration reads per query: one batch of writes (500 is Firestore's cap). */
export const MAX_MIGRATION_BATCH_SIZE = 500;

export type MigrationArgs = { dryRun: boolean; batchSize: number };

/** `[--dry-run] [--batch-size N]` and `--help`, nothing else: the shape of every migration command. */
export function parseMigrationArgs(argv: string[], defaultBatchSize: number): Parsed<MigrationArgs> {
  const read = readArgv(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { 'dry-run': { type: 'boolean' }, 'batch-size': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }),
  );
  if (!read.ok) return invalid(read.message);
  const { values, positionals } = read.value;
  if (values.help) return { kind: 'help' };
  const positionalError = expectPositionals(positionals, []);
  if (positionalError) return invalid(positionalError);
  const batchSize = values['batch-size'] === undefined ? defaultBatchSize : Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_MIGRATION_BATCH_SIZE)
    return invalid(`--batch-size must be a whole number from 1 to ${MAX_MIGRATION_BATCH_SIZE}`);
  return { kind: 'args', args: { dryRun: values['dry-run'] ?? false, batchSize } };
}
