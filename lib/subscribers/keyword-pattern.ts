/**
 * How a keyword or exclude is found in a posting's text: case-insensitive, with word boundaries
 * that understand "c++", "node.js" and ".net": a keyword matches where it is not glued to another
 * letter, combining mark or digit. Marks are part of a word: in Devanagari or Arabic a word is
 * letters *and* the marks between them, so "हिन" must not match inside "हिन्दी". Matching decides
 * with it (lib/matching), and an email's excerpt finds with it the passage that matched (lib/mail),
 * which is below matching: so the rule lives here, with the terms it reads.
 */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function keywordPattern(keyword: string): RegExp {
  const body = escapeRegExp(keyword.trim().toLowerCase()).replace(/\s+/g, '\\s+');
  return new RegExp(`(?<![\\p{L}\\p{M}\\p{N}])${body}(?![\\p{L}\\p{M}\\p{N}])`, 'iu');
}
