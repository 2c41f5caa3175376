import { keywordPattern } from '../subscribers/keyword-pattern';

/**
 * The words of a preview's posting that its query matched, found in a title or an excerpt to be
 * marked (`<mark>` in the panel). Found with the matcher's own rule (keywordPattern: whole words,
 * case-insensitive, `c++` and `node.js` as words, marks part of a word), so what is marked is what
 * matched, not a substring of another word. Plain text in, plain text out: the panel escapes it.
 */
export type TextPart = { text: string; marked: boolean };

/** `text` cut into its parts, the occurrences of any of `words` marked; the longest word wins where two start together. */
export function markedParts(text: string, words: readonly string[]): TextPart[] {
  const patterns = [...words].sort((a, b) => b.length - a.length).map((word) => new RegExp(keywordPattern(word).source, 'giu'));
  const found: { start: number; end: number }[] = [];
  for (const pattern of patterns)
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (end > start && !found.some((f) => start < f.end && end > f.start)) found.push({ start, end });
    }
  found.sort((a, b) => a.start - b.start);
  const parts: TextPart[] = [];
  let at = 0;
  for (const { start, end } of found) {
    if (start > at) parts.push({ text: text.slice(at, start), marked: false });
    parts.push({ text: text.slice(start, end), marked: true });
    at = end;
  }
  if (at < text.length) parts.push({ text: text.slice(at), marked: false });
  return parts;
}
