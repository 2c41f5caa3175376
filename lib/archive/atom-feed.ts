import { createHmac } from 'node:crypto';

/**
 * An Atom 1.0 document (RFC 4287), written by hand rather than through a generator: every piece
 * of text goes through `xmlText`, which is the whole of the escaping, and nothing is left to a
 * library's judgement (feedsmith's generator silently drops a title holding a control character).
 * Titles are `type="text"`: a posting's text is never markup, in the feed as in the email. An
 * entry's content may be `type="html"` (RFC 4287 §3.1.1.2): HTML Scout wrote, every posting text in
 * it escaped as HTML first (`htmlText`), then the whole escaped once more as XML character data, so
 * a reader unescapes it to that HTML and nothing in a posting can become markup.
 */

export type AtomEntry = {
  id: string;
  title: string;
  updated: Date;
  published: Date;
  /** The posting itself (rel="alternate"); null when it has no safe link: `content` then stands for it. */
  link: string | null;
  /** Plain text, or HTML built with `htmlText` when `contentType` is `html`. */
  content: string;
  contentType?: 'text' | 'html';
};

export type AtomFeed = {
  id: string;
  title: string;
  subtitle: string;
  updated: Date;
  author: string;
  /** The feed's own URL (rel="self"), as the reader fetched it. */
  selfUrl: string;
  /** A page for people (rel="alternate"). */
  homeUrl: string;
  entries: AtomEntry[];
};

/** What XML 1.0 cannot carry at all, not even escaped: C0 controls but tab and newlines, unpaired surrogates, U+FFFE and U+FFFF. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text as XML character data or an attribute value: what XML cannot hold dropped, the five markup characters escaped. */
export const xmlText = (text: string) => text.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => ESCAPES[c]);

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML character data or a quoted attribute value, for an html content: what XML cannot hold dropped, the five markup characters escaped. */
export const htmlText = (text: string) => text.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

const date = (at: Date) => at.toISOString();

export function renderAtomFeed(feed: AtomFeed): string {
  const entries = feed.entries.map((entry) =>
    [
      '  <entry>',
      `    <id>${xmlText(entry.id)}</id>`,
      `    <title type="text">${xmlText(entry.title)}</title>`,
      `    <updated>${date(entry.updated)}</updated>`,
      `    <published>${date(entry.published)}</published>`,
      ...(entry.link ? [`    <link rel="alternate" type="text/html" href="${xmlText(entry.link)}"/>`] : []),
      `    <content type="${entry.contentType ?? 'text'}">${xmlText(entry.content)}</content>`,
      '  </entry>',
    ].join('\n'),
  );
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${xmlText(feed.id)}</id>`,
    `  <title type="text">${xmlText(feed.title)}</title>`,
    `  <subtitle type="text">${xmlText(feed.subtitle)}</subtitle>`,
    `  <updated>${date(feed.updated)}</updated>`,
    `  <author><name>${xmlText(feed.author)}</name></author>`,
    `  <link rel="self" type="application/atom+xml" href="${xmlText(feed.selfUrl)}"/>`,
    `  <link rel="alternate" type="text/html" href="${xmlText(feed.homeUrl)}"/>`,
    '  <generator>Scout</generator>',
    ...entries,
    '</feed>',
    '',
  ].join('\n');
}

/**
 * A stable `urn:uuid:` for a name (a feed, an entry), keyed with the link secret: the same name
 * always gives the same id, so a reader never shows an entry twice, yet the id says nothing about
 * whose feed it is (a uid is the subscriber's address in base64url; a plain hash of it could be
 * recomputed by anyone who knows the address). An RFC 9562 version 8 UUID from HMAC-SHA-256.
 */
export function privateUuid(secret: string, name: string): string {
  const bytes = createHmac('sha256', secret).update(`scout-feed-id:${name}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
