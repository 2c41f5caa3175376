import { compile } from 'html-to-text';

// Elements whose content is never visible prose: code, styling, embeds.
const SKIPPED_ELEMENTS = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'svg',
  'math',
  'canvas',
  'audio',
  'video',
  'head',
  'title',
];

// Compiled once: building the selector tree is the expensive part.
const convertHtml = compile({
  wordwrap: false,
  decodeEntities: true,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'ul', options: { itemPrefix: ' • ' } },
    ...SKIPPED_ELEMENTS.map((selector) => ({ selector, format: 'skip' })),
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
  // Bounds the work a hostile, deeply nested document can cause.
  limits: { maxDepth: 64, maxChildNodes: 10_000, ellipsis: '…' },
});

// C0/C1 controls (except tab/newline) and invisible bidi/zero-width marks,
// which can disguise text in an email.
const INVISIBLE_CHARS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/**
 * HTML fragment → plain text with line breaks kept (so "Skills:" and
 * "Budget:" lines can still be found). `maxInput` cuts the input first:
 * converting a megabyte of HTML to keep 2,000 chars is wasted work.
 */
export function htmlToPlainText(html: string, maxInput: number): string {
  return cleanPlainText(convertHtml(truncateInput(html, maxInput)));
}

/** For fields the format declares as plain text: no tag parsing, just cleanup. */
export function cleanPlainText(text: string, maxInput = Infinity): string {
  return truncateInput(text, maxInput).normalize('NFC').replace(/\r\n?/g, '\n').replace(INVISIBLE_CHARS, '');
}

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Caps at `max` UTF-16 units including the ellipsis, never splitting a surrogate pair. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}

function truncateInput(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  return text.slice(0, end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
