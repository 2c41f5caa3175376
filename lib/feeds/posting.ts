import { createHash } from 'node:crypto';

export type { Budget, PayKind } from '../pay/pay';
import type { Budget } from '../pay/pay';

export type Posting = {
  /** Firestore doc id for jobs/: `${source}_${hash}`. */
  id: string;
  /** Feed source id (see feed-source.ts); [a-z0-9-] only. */
  source: string;
  guid: string | null;
  /** Plain text, at most 300 chars. */
  title: string;
  /** Absolute http(s) URL, or null. */
  url: string | null;
  /**
   * The posting's whole plain text, whitespace collapsed, at most MAX_DESCRIPTION chars: what
   * matching reads. Emails, the archive and the preview show an excerpt of it, the model a bounded
   * part. Postings stored before the cap was raised hold at most 2,000 chars.
   */
  description: string;
  budget: Budget | null;
  /** Tags: the source's categories and skills, lowercased, deduplicated. */
  skills: string[];
  publishedAt: Date | null;
  /** Plain text, at most 200 chars; from the boards that name the employer. */
  company?: string | null;
  /** Plain text, at most 200 chars: "Berlin, Germany", "Remote (EU)". */
  location?: string | null;
  /** True when the source says the job is remote; null when it does not say. */
  remote?: boolean | null;
};

/** What every kind of source caps a posting's text to (the feed path and the API adapters alike). */
export const MAX_TITLE = 300;
/**
 * The whole text is kept for matching: the requirements of a real posting come after the company's
 * story, often past its first 2,000 chars (the old cap). The longest real posting of the corpus has
 * 17,541 chars of plain text, the 95th percentile 7,478 (docs/sources.md, "How long real postings
 * are"); the cap is over twice the longest, so only a hostile or broken posting reaches it, and the
 * run logs `posting.text_cut` when one does. Its worst case stays far inside Firestore's 1 MiB
 * (test/store/production-limits.test.ts).
 */
export const MAX_DESCRIPTION = 40_000;
/**
 * The text cap before the whole text was kept. A feed item with neither guid nor link is named by
 * a hash of its text (to-posting.ts): that hash still reads this much, so such an item keeps the
 * id it had and is not stored a second time.
 */
export const IDENTITY_DESCRIPTION_CHARS = 2_000;
export const MAX_GUID = 1_024;
// Input cut before HTML conversion: the longest real posting's HTML is 26,424 chars, so this is ample
// for the capped text, yet a 1 MB field costs no more than this.
export const MAX_TITLE_INPUT = 10_000;
export const MAX_DESCRIPTION_INPUT = 100_000;

// 20 base64url chars = 120 bits: collisions are out of reach, ids stay short.
const HASH_LENGTH = 20;

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('base64url').slice(0, HASH_LENGTH);
}

/**
 * Deterministic jobs/ id, so two runs on two machines compute the same id
 * (docs/design.md §2.2). `key` is the guid, else the link, else a content key.
 */
export function postingId(source: string, key: string): string {
  return `${source}_${hashKey(key)}`;
}

/**
 * Whether a stored text reached the cap and lost its end: capText leaves at least `max - 1` chars
 * ending in its ellipsis. The run counts these per source (`posting.text_cut`), so the loss is seen.
 */
export function isTextCut(description: string, max = MAX_DESCRIPTION): boolean {
  return description.length >= max - 1 && description.endsWith('…');
}
