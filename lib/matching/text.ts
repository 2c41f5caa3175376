/**
 * Matching is case-insensitive with word boundaries that understand "c++", "node.js" and ".net":
 * a keyword matches where it is not glued to another letter or digit.
 */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function keywordPattern(keyword: string): RegExp {
  const body = escapeRegExp(keyword.trim().toLowerCase()).replace(/\s+/g, '\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, 'iu');
}

/** Letter/digit runs: the inverted index's vocabulary (a superset filter; the pattern decides). */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

export const firstToken = (keyword: string): string | null => tokenize(keyword)[0] ?? null;
