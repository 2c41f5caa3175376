import { createHash } from 'node:crypto';
import type { Validators } from '../http/conditional-get';
import type { Subscriber } from '../subscribers/subscriber';
import { postingExcerpt } from '../mail/posting-excerpt';
import { archiveCard, factsLine, GONE_TITLE, type ArchiveCardContext } from './archive-card';
import { htmlText, privateUuid, type AtomEntry, type AtomFeed } from './atom-feed';
import { ARCHIVE_DAYS, type ArchiveEntry, type SentItem } from './read-archive';

/** Entries the private feed carries: the newest of the archive's window. A reader keeps what it has seen. */
export const FEED_ENTRIES = 50;
/** How much of a posting's description an entry carries, as the email's card does (280) and a little more. */
export const FEED_EXCERPT_CHARS = 500;
/** Part of every ETag: a change to what an entry shows makes every reader fetch the feed again. */
const FEED_FORMAT = 'scout-atom-3';

/** When the feed last changed: its newest send, or, before anything was sent, when the subscriber joined. */
export function feedUpdatedAt(items: Pick<SentItem, 'sentAt'>[], subscriber: Pick<Subscriber, 'confirmedAt' | 'createdAt'>): Date {
  const newest = Math.max(...items.map((item) => item.sentAt.getTime()));
  return Number.isFinite(newest) ? new Date(newest) : (subscriber.confirmedAt ?? subscriber.createdAt);
}

/**
 * The feed's validators, from the ledger alone: which entries it holds and when each was sent
 * (and the URL version: a new URL is a new feed). A weak tag: the same entries are the same feed,
 * though a posting's stored text (a repost, a new budget) may have moved on since. Deciding a 304
 * from these reads no posting.
 */
export function feedValidators(input: { version: number; items: Pick<SentItem, 'id' | 'sentAt'>[]; updated: Date }): Validators {
  const entries = input.items.map((item) => [item.id, item.sentAt.getTime()]);
  const tag = createHash('sha256')
    .update(JSON.stringify([FEED_FORMAT, input.version, entries]))
    .digest('base64url')
    .slice(0, 27);
  return { etag: `W/"${tag}"`, lastModified: input.updated };
}

/**
 * What an entry says, as HTML (an Atom `type="html"` content): who hires and where, the pay and when
 * it was posted (in the subscriber's zone), why Scout sent it, the model's verdict, the excerpt an
 * email's card shows (the start of the text, or the passage naming a keyword found only deeper), and
 * the entry's "Not a fit" link. Every piece of text goes through htmlText; only Scout's tags are markup.
 */
function entryContent(entry: ArchiveEntry, keywords: readonly string[], context: ArchiveCardContext): string {
  const card = archiveCard(entry, context);
  const excerpt = entry.posting
    ? postingExcerpt({ title: card.title, description: entry.posting.description ?? '' }, keywords, FEED_EXCERPT_CHARS)
    : '';
  const paragraph = (text: string) => (text ? `<p>${htmlText(text)}</p>` : '');
  return [
    paragraph(factsLine(card)),
    paragraph(card.reasons.length > 0 ? `Why: ${card.reasons.join('; ')}` : ''),
    paragraph(card.fit ?? ''),
    paragraph(card.kept ? excerpt : 'Scout no longer keeps this posting.'),
    card.notAFitUrl ? `<p><a href="${htmlText(card.notAFitUrl)}">Not a fit</a></p>` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

export function privateFeedDocument(input: {
  /** Whose feed: their id names it, their link version signs each "Not a fit", their zone writes its dates. */
  subscriber: ArchiveCardContext['subscriber'];
  entries: ArchiveEntry[];
  updated: Date;
  secret: string;
  appUrl: string;
  selfUrl: string;
  /** The clock each entry's "Not a fit" link is issued on. */
  now: Date;
  /** The subscriber's keywords, for each entry's excerpt. */
  keywords?: readonly string[];
}): AtomFeed {
  const context: ArchiveCardContext = { subscriber: input.subscriber, appUrl: input.appUrl, secret: input.secret, now: input.now };
  const entries = input.entries.map((entry): AtomEntry => ({
    id: privateUuid(input.secret, `entry:${entry.id}`),
    title: entry.posting?.title || GONE_TITLE,
    updated: entry.sentAt,
    published: entry.sentAt,
    link: entry.posting?.url ?? null,
    content: entryContent(entry, input.keywords ?? [], context),
    contentType: 'html',
  }));
  return {
    id: privateUuid(input.secret, `feed:${input.subscriber.id}`),
    title: 'Scout: postings that fit you',
    subtitle: `The postings Scout sent you in the last ${ARCHIVE_DAYS} days, newest first. This address is private: anyone who has it can read them.`,
    updated: input.updated,
    author: 'Scout',
    selfUrl: input.selfUrl,
    homeUrl: `${input.appUrl}/`,
    entries,
  };
}
