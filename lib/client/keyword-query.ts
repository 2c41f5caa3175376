/**
 * The query the simple form's lists say, as the "Advanced: write a query" field shows it, computed
 * in the browser as the keywords and excludes are typed. It is the server's canonical text of the
 * lists (keywordQueryText, lib/query/subscriber-query.ts), rewritten here because the printer and
 * the keyword rule pull in the parser and zod, which the form script must not carry; a test holds
 * the two equal over generated lists (test/client/keyword-query.test.ts).
 */

const WHITE_SPACE = /\p{White_Space}+/gu;

/** normaliseKeyword's spelling: white space collapsed and trimmed, lowercased, composed. */
const normalise = (term: string) => term.replace(WHITE_SPACE, ' ').replace(/^ | $/g, '').toLowerCase().normalize('NFC');

/** A field's text as the schema splits it (splitKeywordList): commas or new lines, normalised, each once. */
export const termsOf = (text: string): string[] => [
  ...new Set(
    text
      .split(/[,\r\n]+/)
      .map(normalise)
      .filter(Boolean),
  ),
];

/** A term that would read otherwise unquoted (termNeedsQuotes): several words, or a leading `-`. */
const written = (term: string) => (term.includes(' ') || term.startsWith('-') ? `"${term}"` : term);

/** "react OR \"react native\" -wordpress"; '' when there is no keyword (the lists say nothing yet). */
export function keywordQueryOf(keywordsText: string, excludesText: string): string {
  const keywords = termsOf(keywordsText);
  if (keywords.length === 0) return '';
  return [keywords.map(written).join(' OR '), ...termsOf(excludesText).map((exclude) => `-${written(exclude)}`)].join(' ');
}
