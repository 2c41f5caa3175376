import type { ChannelContent, ChannelPosting } from '../channel-content';

/**
 * What every chat format (Slack, Discord, Telegram) says about a posting, and the one way each
 * piece of hostile text is made safe to show: cleaned to one line, cut at a whole grapheme, escaped
 * by the format's own rule. The webhook's JSON carries the postings' fields, not these sentences.
 */

/**
 * How much of each field a chat message shows, measured after the format's escaping (Slack's
 * `&amp;` counts five): a card stays a card however long a feed's strings are, and with each
 * field capped, even one posting at every cap fits any platform's per-field limit.
 */
export const SHOWN = { title: 200, company: 100, place: 100, pay: 60, reason: 120, reasons: 3, source: 60 } as const;

/** The longest posting link a chat message carries; longer ones are shown without a link. */
export const MAX_LINK = 2048;

const ELLIPSIS = '…';
const UNTITLED = 'Untitled posting';

// C0 and C1 controls (a newline included: every field is one line, so no hostile text can start a
// line, where Slack and Discord read `>`, `#` and `-` as a quote, a heading or a list).
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
// Bidirectional embeddings, overrides and isolates, and the marks: `\u202e` would show
// "gnp.exe" for "exe.png". Zero-width joiners stay: emoji sequences (👩🏽‍💻) are made of them.
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// Half of a surrogate pair, from a feed that cut an emoji: it becomes U+FFFD, as a browser shows it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const SPACES = /\s+/g;

/** A feed's string as one clean line: no controls, no direction tricks, single spaces, trimmed. */
export function oneLine(raw: string | null | undefined): string {
  if (!raw) return '';
  return raw.replace(LONE_SURROGATE, '\uFFFD').replace(CONTROLS, ' ').replace(BIDI, '').replace(SPACES, ' ').trim();
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * `text` escaped grapheme by grapheme, at most `max` UTF-16 units long, with "…" when cut.
 * Cutting whole graphemes never splits a surrogate pair, a flag or a ZWJ emoji, and cutting before
 * escaping is complete never leaves half an entity (`&am`) or a lone escaping backslash.
 */
export function fitText(text: string, max: number, escape: (grapheme: string) => string = (g) => g): string {
  // A 10,000-character title needs only its first `max` UTF-16 units segmented.
  const head = text.length > max + 1 ? text.slice(0, max + 1) : text;
  const pieces: string[] = [];
  let length = 0;
  for (const { segment } of graphemes.segment(head)) {
    const piece = escape(segment);
    if (length + piece.length > max) return withEllipsis(pieces, length, max);
    pieces.push(piece);
    length += piece.length;
  }
  return head.length < text.length ? withEllipsis(pieces, length, max) : pieces.join('');
}

/** The escaped pieces that fit with "…" after them: whole pieces only, so no entity is cut. */
function withEllipsis(pieces: string[], length: number, max: number): string {
  while (pieces.length > 0 && length + ELLIPSIS.length > max) length -= pieces.pop()!.length;
  return `${pieces.join('').trimEnd()}${ELLIPSIS}`;
}

/**
 * A link a chat message may carry: an absolute http(s) URL without credentials, at most
 * `MAX_LINK` long, in its parsed form; anything else (`javascript:`, `data:`, a relative path,
 * https://bank.example@evil.example) is null, and the text is shown without a link. Postings'
 * links were made safe when they were stored; this does not rely on it.
 */
export function safeLink(raw: string | null | undefined): string | null {
  const trimmed = raw?.trim();
  if (!trimmed) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  return url.href.length > MAX_LINK ? null : url.href;
}

/** A posting's title as shown: cleaned, or "Untitled posting" when a feed gave only whitespace. */
export const titleOf = (posting: ChannelPosting) => oneLine(posting.title) || UNTITLED;

/** "Acme · Berlin, Germany · $50–70/hour" parts that are present, each cleaned (not yet escaped). */
export function facts(posting: ChannelPosting): { label: string; text: string; max: number }[] {
  const parts = [
    { label: 'Company', text: oneLine(posting.company), max: SHOWN.company },
    { label: 'Place', text: oneLine(posting.place), max: SHOWN.place },
    { label: 'Pay', text: oneLine(posting.pay), max: SHOWN.pay },
  ];
  return parts.filter((p) => p.text !== '');
}

/** "Fit 82/100" when the model judged the posting, else "Score 64/100": the number a subscriber ranks by. */
export function rating(posting: ChannelPosting): { label: string; text: string } {
  const judged = typeof posting.fit === 'number' && Number.isFinite(posting.fit);
  const value = judged ? posting.fit! : posting.score;
  const shown = Number.isFinite(value) ? Math.max(0, Math.min(100, Math.round(value))) : 0;
  return { label: judged ? 'Fit' : 'Score', text: `${shown}/100` };
}

/** The first reasons, each cleaned and escaped, then "and N more": why it was sent, never a wall. */
export function reasonsLine(reasons: readonly string[], escape: (grapheme: string) => string): string {
  const cleaned = reasons.map(oneLine).filter((r) => r !== '');
  const shown = cleaned.slice(0, SHOWN.reasons).map((r) => fitText(r, SHOWN.reason, escape));
  const more = cleaned.length - shown.length;
  return more > 0 ? `${shown.join('; ')} and ${more} more` : shown.join('; ');
}

/** The source's name as shown ("via Remotive"), cleaned; empty when there is none. */
export const sourceOf = (posting: ChannelPosting) => oneLine(posting.source);

/**
 * A digest's period as shown: the claim writes `2026-12-06` or `2026-W49`, but it is shown from
 * what it is made of only (letters, digits and dashes), so nothing else can reach a header.
 */
export const periodOf = (period: string) => period.replace(/[^0-9A-Za-z-]/g, '').slice(0, 20);

/** A verification code as shown: letters, digits and dashes only, at most 32 (codes are Scout's, never a feed's). */
export const codeOf = (code: string | null) => (code ?? '').replace(/[^0-9A-Za-z-]/g, '').slice(0, 32);

/** The message's first line: what it is and how many postings it lists. */
export function headline(content: ChannelContent): string {
  if (content.type === 'test') return 'Scout verification';
  const total = content.postings.length + content.more;
  const matches = `${total} new ${total === 1 ? 'match' : 'matches'}`;
  return content.type === 'digest' ? `Scout digest for ${periodOf(content.period)}: ${matches}` : `Scout: ${matches}`;
}

/** The line after the postings when some did not fit the message. */
export const moreText = (more: number) => `and ${more} more`;
export const ARCHIVE_LABEL = 'see your archive';
export const PREFERENCES_LABEL = 'Pause or remove this channel';
export const YOUR_ARCHIVE = 'Your archive';

/** The verification message's lines, the same on Slack and Discord. */
export const VERIFY_INTRO = 'Your Scout verification code:';
export const VERIFY_HINT = 'Type it on your preferences page to connect this channel. Did not ask for it? Ignore this message.';
