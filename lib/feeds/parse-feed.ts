import { parseFeed as parseAnyFeed, type AnyFeed } from 'feedsmith';
import { z } from 'zod';
import { FeedParseError } from './feed-errors';
import { readFeedItems, type FeedItem } from './feed-items';
import { isRemoteOnlyBoard, readFeedJobFields } from './feed-job-fields';
import { siteNamesOf, titlesEndWithTheCompany, titlesNameTheCompany } from './job-title';
import type { Posting } from './posting';
import { toSafeUrl } from './safe-url';
import { toPosting } from './to-posting';

export { FeedParseError } from './feed-errors';

/**
 * RSS 2.0 / Atom / RDF / JSON Feed → Postings. Items with neither title nor
 * link are dropped; items sharing an id keep the first. Anything that is not
 * a complete, recognisable feed throws FeedParseError rather than yielding
 * partial results.
 */
export function parseFeed(body: string, options: { source: string; baseUrl: string }): Posting[] {
  return readFeed(body, options).postings;
}

/** parseFeed, with the feed's own title as sent (null when it states none): how it names itself (source-name.ts). */
export function readFeed(body: string, options: { source: string; baseUrl: string }): { postings: Posting[]; title: string | null } {
  const { parsed, rawJson } = detectFeed(body, options.source);
  const document = readFeedItems(parsed, rawJson);
  // Relative item links resolve against the feed's own home link, else the URL it was fetched from.
  const feedUrl = toSafeUrl(options.baseUrl, null);
  const baseUrl = toSafeUrl(document.homeUrl, feedUrl) ?? feedUrl;
  const items = parsed.format === 'json' ? document.items : withJobFields(document.items, body);
  const siteNames = siteNamesOf(document.title, feedUrl);
  const titles = items.map((item) => item.title?.value ?? '');
  const companyInTitle = titlesNameTheCompany(titles, siteNames);
  const context = {
    source: options.source,
    baseUrl,
    siteNames,
    companyInTitle,
    companyAtEnd: !companyInTitle && titlesEndWithTheCompany(titles, siteNames),
    remoteOnly: isRemoteOnlyBoard(options.baseUrl),
  };

  const postings: Posting[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    const posting = toPosting(item, context);
    if (!posting || seen.has(posting.id)) continue;
    seen.add(posting.id);
    postings.push(posting);
  }
  return { postings, title: document.title };
}

/**
 * Each item with the job board's own elements, read apart in document order. Only when that
 * reading finds exactly the parser's items: a count that differs means the two disagree on what
 * an item is, and no item gets another's employer.
 */
function withJobFields(items: FeedItem[], body: string): FeedItem[] {
  const fields = readFeedJobFields(body);
  if (fields.length !== items.length) return items;
  return items.map((item, index) => ({ ...item, job: fields[index] }));
}

function detectFeed(body: string, source: string): { parsed: AnyFeed; rawJson: unknown } {
  const text = body.replace(/^\uFEFF/, '').trim();
  if (!text) throw new FeedParseError(source, 'empty feed body');
  const rawJson = text.startsWith('{') ? parseJson(text, source) : null;
  if (rawJson !== null) assertJsonFeedShape(rawJson, source);
  let parsed: AnyFeed;
  try {
    parsed = parseAnyFeed(rawJson ?? text);
  } catch (error) {
    throw new FeedParseError(source, describeFeedsmithError(error), { cause: error });
  }
  if (parsed.format !== 'json') assertRootClosed(text, source);
  return { parsed, rawJson };
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FeedParseError(source, 'malformed JSON', { cause: error });
  }
}

function describeFeedsmithError(error: unknown): string {
  const name = error instanceof Error ? error.name : '';
  if (name === 'DetectError') return 'not an RSS, Atom, RDF or JSON feed';
  if (name === 'MalformedError') return 'malformed XML';
  return 'invalid feed';
}

// The XML parser is lenient with a document cut short (a dropped connection,
// a proxy's partial response) and returns the items it saw. A feed that does
// not end with its root's end tag is incomplete, so it is rejected whole.
const ROOT_END = /<\/(?:[\w.-]+:)?(?:rss|feed|RDF)\s*>(?:\s|<!--[\s\S]*?-->|<\?[\s\S]*?\?>)*$/;

// Only the tail is searched, so a hostile body full of "</rss><!--" costs nothing.
const TAIL_LENGTH = 4_096;

function assertRootClosed(text: string, source: string): void {
  if (!ROOT_END.test(text.slice(-TAIL_LENGTH))) throw new FeedParseError(source, 'malformed XML: document is incomplete');
}

// JSON Feed 1.1 §3: `items` is an array, and every item MUST have an id (a string; 1.0 allowed a
// number). feedsmith is lenient with both; an answer that breaks them is not half-used.
const jsonFeedShape = z.object({
  version: z.string().startsWith('https://jsonfeed.org/version/'),
  items: z.array(z.object({ id: z.union([z.string().min(1), z.number()]) }).loose()),
});

function assertJsonFeedShape(value: unknown, source: string): void {
  const result = jsonFeedShape.safeParse(value);
  if (result.success) return;
  const issue = result.error.issues[0];
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : 'feed';
  throw new FeedParseError(
    source,
    `not a JSON Feed: ${where} ${issue.code === 'invalid_type' ? 'has the wrong type or is missing' : 'is invalid'}`,
  );
}
