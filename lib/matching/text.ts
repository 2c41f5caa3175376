/**
 * Matching's view of text. A keyword matches where keywordPattern finds it (the rule lives in
 * lib/subscribers, so an email's excerpt, below matching, finds the same passage).
 */
export { keywordPattern } from '../subscribers/keyword-pattern';

/** Letter/mark/digit runs: the keyword lookup's vocabulary (a superset filter; the pattern decides). */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter(Boolean);
}

export const firstToken = (keyword: string): string | null => tokenize(keyword)[0] ?? null;
