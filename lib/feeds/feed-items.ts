import type { AnyFeed, AtomFeed } from 'feedsmith';
import type { FeedJobFields } from './feed-job-fields';

/** A text field and whether the format says it carries HTML. */
export type FeedText = { value: string; html: boolean };

/** One item in a format-neutral shape, still raw (untrusted, unnormalised). */
export type FeedItem = {
  guid: string | null;
  title: FeedText | null;
  link: string | null;
  description: FeedText | null;
  categories: string[];
  published: string | null;
  /** JSON Feed `_scout` extension object, if any. */
  scout: unknown;
  /** A job board's own elements (feed-job-fields.ts); the feed parser drops them, so they are read apart. */
  job?: FeedJobFields | null;
};

/** `title`: the feed's own name, as sent (its items' titles may repeat the site's name in it). */
export type FeedDocument = { homeUrl: string | null; title: string | null; items: FeedItem[] };

/**
 * Maps each format's item fields onto FeedItem. `rawJson` is the JSON Feed
 * object as parsed by JSON.parse: feedsmith drops unknown keys such as
 * `_scout`, so extensions are read from it.
 */
export function readFeedItems(parsed: AnyFeed, rawJson: unknown): FeedDocument {
  switch (parsed.format) {
    case 'rss':
      return {
        homeUrl: parsed.feed.link ?? null,
        title: parsed.feed.title ?? null,
        items: (parsed.feed.items ?? []).map((item) => ({
          guid: item.guid?.value ?? null,
          title: html(item.title),
          // A permalink guid doubles as the link when <link> is missing.
          link: item.link ?? (item.guid?.isPermaLink !== false ? absoluteOnly(item.guid?.value) : null),
          description: html(item.content?.encoded || item.description),
          categories: [...(item.categories ?? []).map((c) => c.name ?? ''), ...(item.dc?.subjects ?? [])],
          published: item.pubDate ?? item.dc?.dates?.[0] ?? null,
          scout: null,
        })),
      };
    case 'rdf':
      return {
        homeUrl: parsed.feed.link ?? null,
        title: parsed.feed.title ?? null,
        items: (parsed.feed.items ?? []).map((item) => ({
          guid: item.rdf?.about ?? null,
          title: html(item.title),
          link: item.link ?? null,
          description: html(item.content?.encoded || item.description),
          categories: item.dc?.subjects ?? [],
          published: item.dc?.dates?.[0] ?? null,
          scout: null,
        })),
      };
    case 'atom':
      return {
        homeUrl: pickAtomLink(parsed.feed.links),
        title: atomText(parsed.feed.title)?.value ?? null,
        items: (parsed.feed.entries ?? []).map((entry) => ({
          guid: entry.id ?? null,
          title: atomText(entry.title),
          link: pickAtomLink(entry.links),
          description: atomText(entry.content?.value ? entry.content : entry.summary),
          categories: (entry.categories ?? []).map((c) => c.label || c.term || ''),
          published: entry.published ?? entry.updated ?? entry.dc?.dates?.[0] ?? null,
          scout: null,
        })),
      };
    case 'json': {
      const extensions = readScoutExtensions(rawJson);
      return {
        homeUrl: parsed.feed.home_page_url ?? null,
        title: parsed.feed.title ?? null,
        items: (parsed.feed.items ?? []).map((item) => ({
          guid: item.id ?? null,
          title: html(item.title),
          link: item.url ?? item.external_url ?? null,
          description: item.content_html ? html(item.content_html) : plain(item.content_text || item.summary),
          categories: item.tags ?? [],
          published: item.date_published ?? item.date_modified ?? null,
          scout: item.id === undefined ? null : (extensions.get(item.id) ?? null),
        })),
      };
    }
  }
}

function html(value: string | undefined): FeedText | null {
  return value ? { value, html: true } : null;
}

function plain(value: string | undefined): FeedText | null {
  return value ? { value, html: false } : null;
}

// RFC 4287: a text construct without a type is plain text.
function atomText(text: { value?: string; type?: string } | undefined): FeedText | null {
  if (!text?.value) return null;
  return { value: text.value, html: text.type === 'html' || text.type === 'xhtml' };
}

function pickAtomLink(links: Array<AtomFeed.Link<string>> | undefined): string | null {
  const alternates = (links ?? []).filter((link) => link.href && (!link.rel || link.rel === 'alternate'));
  const page = alternates.find((link) => !link.type || /html/i.test(link.type)) ?? alternates[0];
  return page?.href ?? null;
}

function absoluteOnly(value: string | undefined): string | null {
  return value && /^https?:\/\//i.test(value.trim()) ? value : null;
}

function readScoutExtensions(rawJson: unknown): Map<string, unknown> {
  const extensions = new Map<string, unknown>();
  const items = (rawJson as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return extensions;
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const { id, _scout } = item as { id?: unknown; _scout?: unknown };
    if ((typeof id === 'string' || typeof id === 'number') && _scout !== undefined) {
      // feedsmith stringifies numeric ids; first occurrence wins like the dedupe does.
      if (!extensions.has(String(id))) extensions.set(String(id), _scout);
    }
  }
  return extensions;
}
