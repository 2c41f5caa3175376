/**
 * Matching is case-insensitive with word boundaries that understand "c++", "node.js" and ".net":
 * a keyword matches where it is not glued to another letter, combining mark or digit. Marks are
 * part of a word: in Devanagari or Arabic a word is letters *and* the marks between them, so
 * "हिन" must not match inside "हिन्दी".
 */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function keywordPattern(keyword: string): RegExp {
  const body = escapeRegExp(keyword.trim().toLowerCase()).replace(/\s+/g, '\\s+');
  return new RegExp(`(?<![\\p{L}\\p{M}\\p{N}])${body}(?![\\p{L}\\p{M}\\p{N}])`, 'iu');
}

/** Letter/mark/digit runs: the inverted index's vocabulary (a superset filter; the pattern decides). */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter(Boolean);
}

export const firstToken = (keyword: string): string | null => tokenize(keyword)[0] ?? null;
