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
  /** Plain text, at most 2,000 chars. */
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
export const MAX_DESCRIPTION = 2_000;
export const MAX_GUID = 1_024;
// Input cut before HTML conversion: ample for the capped text, yet a 1 MB field costs no more than this.
export const MAX_TITLE_INPUT = 10_000;
export const MAX_DESCRIPTION_INPUT = 100_000;

// 20 base64url chars = 120 bits: collisions are out of reach, ids stay short.
const HASH_LENGTH = 20;

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('base64url').slice(0, HASH_LENGTH);
}

/**
 * Deterministic jobs/ id, so two runs on two machines compute the same id
 * (DESIGN §2.2). `key` is the guid, else the link, else a content key.
 */
export function postingId(source: string, key: string): string {
  return `${source}_${hashKey(key)}`;
}
