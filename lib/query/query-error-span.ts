/**
 * What a page marks of a query at its error's position (docs/query.md "On the pages"): the word or
 * the one bracket, quote or bar at `at` — `OR` in `react OR`, `(` in `react (vue`, `<b>` in
 * `react <b>` — or a space past the end. Free of the parser, so the form script (lib/client) marks
 * exactly what the server's page marks.
 */
const SEPARATOR = /[\s()"“”|]/u;

export function queryErrorSpan(text: string, at: number): { before: string; marked: string; after: string } {
  if (at >= text.length) return { before: text, marked: ' ', after: '' };
  let end = at + 1;
  if (!SEPARATOR.test(text[at])) while (end < text.length && !SEPARATOR.test(text[end])) end++;
  return { before: text.slice(0, at), marked: text.slice(at, end), after: text.slice(end) };
}
