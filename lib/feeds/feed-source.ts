import { createHash } from 'node:crypto';

export type FeedSource = { source: string; url: string };

const NAME_PATTERN = /^([^:/?#=]+)=(.+)$/;
const MAX_SOURCE_LENGTH = 64;
const MAX_HOST_PART = 40;

/**
 * Parses FEED_URLS: entries separated by commas or whitespace, each either
 * `URL` or `name=URL`. Commas inside a URL are therefore not supported.
 * The source id ends up inside Firestore doc ids (`jobs/{source}_{hash}`),
 * so it is restricted to [a-z0-9-] and must never contain `_`.
 */
export function parseFeedUrls(text: string): FeedSource[] {
  const sources: FeedSource[] = [];
  const bySource = new Map<string, string>();
  for (const entry of text.split(/[\s,]+/)) {
    if (!entry) continue;
    const feed = parseEntry(entry);
    const known = bySource.get(feed.source);
    if (known === feed.url) continue;
    if (known !== undefined) {
      throw new Error(`FEED_URLS: source "${feed.source}" is used for two different URLs (entry "${entry}")`);
    }
    bySource.set(feed.source, feed.url);
    sources.push(feed);
  }
  return sources;
}

function parseEntry(entry: string): FeedSource {
  const named = NAME_PATTERN.exec(entry);
  // A bare URL like https://x/?a=b also contains "=", but has ":" or "/" before it.
  const name = named ? named[1] : null;
  const rawUrl = named ? named[2] : entry;
  const url = parseHttpUrl(rawUrl, entry);
  return { source: name === null ? deriveSource(url) : sanitizeName(name, entry), url: url.href };
}

function parseHttpUrl(raw: string, entry: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`FEED_URLS: entry "${entry}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`FEED_URLS: entry "${entry}" must be an http:// or https:// URL`);
  }
  return url;
}

function sanitizeName(name: string, entry: string): string {
  const source = toSourceChars(name);
  if (!source || source.length > MAX_SOURCE_LENGTH) {
    throw new Error(`FEED_URLS: entry "${entry}" has an unusable name (use 1-${MAX_SOURCE_LENGTH} chars of a-z, 0-9, -)`);
  }
  return source;
}

/** Stable for a given URL: the same FEED_URLS value always yields the same ids. */
export function deriveSource(url: URL): string {
  const host = toSourceChars(url.hostname).slice(0, MAX_HOST_PART).replace(/-+$/, '') || 'feed';
  const digest = createHash('sha256').update(url.href, 'utf8').digest('hex').slice(0, 8);
  return `${host}-${digest}`;
}

function toSourceChars(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
}
