import { cleanPostingText } from '../feeds/clean-posting-text';
import { keywordPattern } from '../subscribers/keyword-pattern';

/** How much of a posting's text an email's card shows. */
export const EXCERPT_CHARS = 280;

const ELLIPSIS = '…';
/** Of the passage shown around a keyword deep in the text, the share before the keyword: enough to read where it sits. */
const LEAD_SHARE = 1 / 3;

/**
 * The short excerpt of a posting that emails, the archive, the private feed and the preview show,
 * at most `max` characters. It is the text's start, unless the subscriber's keywords are named
 * neither in the title nor there but only deeper in the text (a posting opens with the company's
 * story; the requirements come later): then it is the passage around the first keyword named,
 * "… the passage …", so the reader sees why it was sent. It is cut from the text as a card shows
 * it (cleanPostingText: without a feed's labels and calls to action). Plain text: every caller
 * escapes it like all posting text.
 */
export function postingExcerpt(
  posting: { title: string; description: string },
  keywords: readonly string[] = [],
  max: number = EXCERPT_CHARS,
): string {
  const text = cleanPostingText(posting.description);
  if (text.length <= max) return text;
  // The text's start, as cards always showed it.
  const head = `${text.slice(0, max).trimEnd()}${ELLIPSIS}`;
  const found = keywords.length > 0 ? firstKeywordAt(text, keywords) : null;
  if (!found || found.end <= max) return head;
  if (keywords.some((keyword) => keywordPattern(keyword).test(posting.title))) return head;
  return passageAround(text, found, max);
}

/** Where the earliest of the keywords is named in the text, or null. */
function firstKeywordAt(text: string, keywords: readonly string[]): { start: number; end: number } | null {
  let first: { start: number; end: number } | null = null;
  for (const keyword of keywords) {
    const match = keywordPattern(keyword).exec(text);
    if (match && (!first || match.index < first.start)) first = { start: match.index, end: match.index + match[0].length };
  }
  return first;
}

/** "… the passage …": at most `max` characters, cut at spaces, the keyword a third of the way in. */
function passageAround(text: string, found: { start: number; end: number }, max: number): string {
  // Room for the two ellipses and the space after the first.
  const room = max - 3;
  let start = Math.max(0, Math.min(found.start - Math.floor(room * LEAD_SHARE), text.length - room));
  if (start > 0) {
    const space = text.indexOf(' ', start);
    // Start at the next word unless that would cut the keyword off.
    if (space !== -1 && space < found.start) start = space + 1;
  }
  const body = cutAtWord(text, start, room);
  const atEnd = start + body.length >= text.length;
  return `${start > 0 ? `${ELLIPSIS} ` : ''}${body}${atEnd ? '' : ` ${ELLIPSIS}`}`;
}

/** Up to `length` characters from `start`, ending at a word's end when one is in reach, never splitting a surrogate pair. */
function cutAtWord(text: string, start: number, length: number): string {
  if (start + length >= text.length) return text.slice(start);
  let end = start + length;
  const space = text.lastIndexOf(' ', end);
  if (space > start + length / 2) end = space;
  else if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  return text.slice(start, end).trimEnd();
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
