import { createHash } from 'node:crypto';
import type { Validators } from '../http/conditional-get';
import type { Subscriber } from '../subscribers/subscriber';
import { postingExcerpt } from '../mail/posting-excerpt';
import { privateUuid, type AtomEntry, type AtomFeed } from './atom-feed';
import { ARCHIVE_DAYS, type ArchiveEntry, type SentItem } from './read-archive';

/** Entries the private feed carries: the newest of the archive's window. A reader keeps what it has seen. */
export const FEED_ENTRIES = 50;
/** How much of a posting's description an entry carries, as the email's card does (280) and a little more. */
export const FEED_EXCERPT_CHARS = 500;
/** Part of every ETag: a change to what an entry shows makes every reader fetch the feed again. */
const FEED_FORMAT = 'scout-atom-2';

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
 * What an entry says: who hires, why Scout sent it, the model's verdict, and the excerpt an email's
 * card shows (the start of the description, or the passage naming a keyword found only deeper).
 */
function entryContent(entry: ArchiveEntry, keywords: readonly string[]): string {
  const excerpt = entry.posting
    ? postingExcerpt({ title: entry.posting.title, description: entry.posting.description ?? '' }, keywords, FEED_EXCERPT_CHARS)
    : '';
  return [
    entry.posting?.employer ?? '',
    entry.reasons.length > 0 ? `Why: ${entry.reasons.join('; ')}` : '',
    entry.fit != null ? `AI fit ${entry.fit}/100${entry.fitReason ? `: ${entry.fitReason}` : ''}` : '',
    entry.posting ? excerpt : `Scout no longer keeps this posting.`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

export function privateFeedDocument(input: {
  uid: string;
  entries: ArchiveEntry[];
  updated: Date;
  secret: string;
  appUrl: string;
  selfUrl: string;
  /** The subscriber's keywords, for each entry's excerpt. */
  keywords?: readonly string[];
}): AtomFeed {
  const entries = input.entries.map((entry): AtomEntry => ({
    id: privateUuid(input.secret, `entry:${entry.id}`),
    title: entry.posting?.title || 'A posting Scout no longer keeps',
    updated: entry.sentAt,
    published: entry.sentAt,
    link: entry.posting?.url ?? null,
    content: entryContent(entry, input.keywords ?? []),
  }));
  return {
    id: privateUuid(input.secret, `feed:${input.uid}`),
    title: 'Scout: postings that fit you',
    subtitle: `The postings Scout sent you in the last ${ARCHIVE_DAYS} days, newest first. This address is private: anyone who has it can read them.`,
    updated: input.updated,
    author: 'Scout',
    selfUrl: input.selfUrl,
    homeUrl: `${input.appUrl}/`,
    entries,
  };
}
