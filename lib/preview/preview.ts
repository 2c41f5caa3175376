import type { DeliveryMode } from '../subscribers/subscriber';

/**
 * What the signup and preferences forms show while a person types ("preview before saving"): how many postings of the last week their keywords, excludes, pay minimums and cadence would
 * have matched, the best few, and how many emails that would have made. Types and numbers only:
 * the form script (lib/client) imports this file, so nothing here may pull in the server.
 */

/** The fields a preview reads from a form (preview-input.ts validates them); the scripts send only these. */
export const PREVIEW_FIELDS = [
  'keywords',
  'excludes',
  'query',
  'minFixed',
  'minHourly',
  'minYearly',
  'minCurrency',
  'minBudget',
  'mode',
  'timezone',
  'digestHour',
  'weekdays',
  'weeklyDay',
] as const;

/** The window looked back over: "postings of the last 7 days", by when Scout first stored them. */
export const PREVIEW_WINDOW_DAYS = 7;

/**
 * The most postings one preview reads: one query, newest first, `limit(PREVIEW_MAX_POSTINGS)`.
 * A busy deployment stores more than this in a week; the preview then counts over the newest
 * 1,000 and says so ("at least"). With the rate limit (preview-limit.ts) it bounds what one
 * client can cost: 30 previews a minute × 1,001 document reads (the postings and the limit's counter).
 */
export const PREVIEW_MAX_POSTINGS = 1_000;

/** How many of the matches the preview lists, best first. */
export const PREVIEW_TOP = 5;

/** The scripts wait this long after the last keystroke before they ask. */
export const PREVIEW_DEBOUNCE_MS = 400;

/** One matching posting as the panel lists it. Every string came from a feed: the panel's React escapes it. */
export type PreviewPosting = {
  id: string;
  title: string;
  url: string | null;
  /** Where it was listed: the source's name on a card ("Remote OK"), else the source id. */
  source: string;
  /** "Acme · Berlin · remote", or null. */
  employer: string | null;
  /** "$4,000 fixed", or null when the posting states none. */
  budget: string | null;
  /** The excerpt an email's card would show: the text's start, or the passage naming a keyword found only deeper. */
  excerpt: string;
  score: number;
  reasons: string[];
  /**
   * The words its query matched, to be marked in the title and the excerpt: the terms of the
   * clauses that made it match (matchQuery's `matched`), `title:` ones for the title only.
   */
  marks: { title: string[]; text: string[] };
  /** ISO instant Scout first stored it. */
  seenAt: string;
};

/**
 * Emails a week the cadence would have sent for the window's matches (estimate-emails.ts), and,
 * for `feed`, how many postings the feed would have gained instead.
 */
export type EmailEstimate = { mode: DeliveryMode; emailsPerWeek: number; feedItems: number };

export type Preview = {
  windowDays: number;
  /** Postings of the window read and matched (copies of one job count once). */
  checked: number;
  /** The read stopped at PREVIEW_MAX_POSTINGS: the window held more, so the counts are lower bounds. */
  truncated: boolean;
  /** Postings that would have matched. */
  matched: number;
  /** The best PREVIEW_TOP of them, by score, then newest. */
  top: PreviewPosting[];
  estimate: EmailEstimate;
};
