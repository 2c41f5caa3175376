import { z } from 'zod';
import { keywordTermSchema, MAX_KEYWORD_LENGTH, normaliseKeyword } from '../query/keyword-term';
import { aboutSchema, DEFAULT_FIT_THRESHOLD, fitThresholdSchema, MAX_ABOUT_LENGTH } from './fit-profile';
import {
  DEFAULT_TIMEZONE,
  DEFAULT_WEEKLY_DAY,
  digestHourSchema,
  timezoneSchema,
  WEEKDAYS,
  weekdaySchema,
  weekdaysSchema,
} from './digest-schedule';
import { DELIVERY_MODES } from './subscriber';
import { minPayInputShape } from '../pay/minimum-pay';
import { QUERY_LIMITS } from '../query/query-tree';
import { MAX_QUERY_TEXT_LENGTH } from '../query/subscriber-query';

/**
 * The fields a subscriber chooses — keywords, excludes, minimum pay per kind, mode, about, fit
 * threshold — with one set of rules and messages for every form that sets them (signup, preferences). Lists arrive as the
 * text of a field (comma- or newline-separated) or as a JSON list, and leave normalised
 * (keyword-term.ts: the characters allowed, lowercased, whitespace-collapsed, NFC) and
 * de-duplicated: the shape matching reads.
 */
export { DEFAULT_FIT_THRESHOLD, MAX_ABOUT_LENGTH, MAX_KEYWORD_LENGTH };
export const MAX_KEYWORDS = 25;
export const MAX_EXCLUDES = 25;

/** "React,  Node.js\nreact" → ["react", "node.js"]. */
export const splitKeywordList = (value: string | string[]): string[] => {
  const items = (Array.isArray(value) ? value : [value]).flatMap((item) => item.split(/[,\r\n]+/));
  return [...new Set(items.map(normaliseKeyword).filter((item) => item.length > 0))];
};

/** A keyword list with its limits; an absent field (some clients do not send an empty one) is an empty list. */
export const keywordListSchema = (input: { min: number; max: number; noun: string }) =>
  z.preprocess(
    (value) => value ?? '',
    z
      .union([z.string(), z.array(z.string())], { error: 'must be text or a list of words' })
      .transform(splitKeywordList)
      .pipe(
        z
          .array(keywordTermSchema(input.noun))
          .min(input.min, `enter at least one ${input.noun}`)
          .max(input.max, `enter at most ${input.max} ${input.noun}s`),
      ),
  );

export const modeSchema = z.enum(DELIVERY_MODES, { error: 'choose instant, daily, weekly or feed' });

/** "" or absent → the deployment's default hour (DIGEST_HOUR_UTC), stored as null so it follows that setting. */
const optionalHourSchema = z.preprocess((value) => (value === '' || value === undefined ? null : value), digestHourSchema.nullable());

/**
 * The digest schedule's fields, each defaulting to what every subscriber had before schedules
 * (08:00 UTC every day): a form or client that sends none of them gets exactly that.
 */
export const scheduleShape = {
  timezone: z.preprocess((value) => (value === '' || value == null ? DEFAULT_TIMEZONE : value), timezoneSchema),
  digestHour: optionalHourSchema,
  weekdays: z.preprocess((value) => (value === '' || value == null ? [...WEEKDAYS] : value), weekdaysSchema),
  weeklyDay: z.preprocess((value) => (value === '' || value == null ? DEFAULT_WEEKLY_DAY : value), weekdaySchema),
};

/**
 * The "Advanced: write a query" field as typed: absent or blank says "the keyword lists are my
 * query". Parsed where it is decided which of the two ways of saying it wins
 * (resolveProfileQuery, lib/query/subscriber-query.ts); bounded here so a huge body is refused
 * before any parsing.
 */
export const querySchema = z.preprocess(
  (value) => (value === null || value === undefined ? '' : value),
  z.string({ error: 'must be text' }).max(MAX_QUERY_TEXT_LENGTH, `the query is too long: at most ${QUERY_LIMITS.length} characters`),
);

export const preferenceShape = {
  // At least one keyword, or a query: resolveProfileQuery says which, after both are read.
  keywords: keywordListSchema({ min: 0, max: MAX_KEYWORDS, noun: 'keyword' }),
  excludes: keywordListSchema({ min: 0, max: MAX_EXCLUDES, noun: 'exclude' }),
  query: querySchema,
  /** Each minimum optional, as a number or money text ("$1,500", "150k"); `minBudget` is the old fixed one (lib/pay/minimum-pay.ts). */
  ...minPayInputShape,
  mode: modeSchema,
  ...scheduleShape,
  /** Free text, trimmed and normalised; control and invisible characters refused; at most 500 characters. */
  about: aboutSchema,
  fitThreshold: fitThresholdSchema,
};

/**
 * A subscription needs something to look for: a keyword, or a query written in the "Advanced"
 * field. Read from the raw body rather than as a refinement, so its message is shown beside every
 * other field's (zod runs no refinement of an object once a field's pipe failed). A written
 * query's own errors are checked where it is decided whether it is the one saved
 * (resolveProfileQuery), since a query shown back unchanged is not judged again by the typed bounds.
 */
export function nothingToLookFor(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { keywords, query } = body as { keywords?: unknown; query?: unknown };
  const texts = typeof keywords === 'string' ? [keywords] : Array.isArray(keywords) ? keywords.filter((k) => typeof k === 'string') : [];
  const listed = splitKeywordList(texts);
  const written = typeof query === 'string' && query.trim() !== '';
  return listed.length === 0 && !written ? 'enter at least one keyword' : null;
}

/** One message per field (the first zod reports), keyed by the field's name; others under `fallback`. */
export function firstErrorPerField<F extends string>(
  issues: z.core.$ZodIssue[],
  fields: readonly F[],
  fallback: F,
): Partial<Record<F, string>> {
  const errors: Partial<Record<F, string>> = {};
  for (const issue of issues) {
    const field = issue.path[0];
    const key = typeof field === 'string' && (fields as readonly string[]).includes(field) ? (field as F) : fallback;
    errors[key] ??= issue.message;
  }
  return errors;
}
