import { formatLocalDay, formatLocalMinute } from '../subscribers/local-time';
import { notAFitUrl } from '../subscribers/link-token';
import type { Subscriber } from '../subscribers/subscriber';
import type { ArchiveEntry } from './read-archive';

/**
 * What the archive page and the private feed show of one entry: what an email's card showed (the
 * title, who hires and where, the pay, when it was posted, why it was sent) and its "Not a fit"
 * link, the same signed link an email carries. Dates are the subscriber's own, in their time zone.
 * Plain text throughout: the page's React and the feed's escaping make it safe where it shows.
 */
export type ArchiveCard = {
  title: string;
  url: string | null;
  /** "Acme · Berlin · remote": who hires and where. */
  employer: string | null;
  pay: string | null;
  /** "posted 28 Nov 2026" in the subscriber's zone; null when the source gave no date. */
  posted: string | null;
  /** "30 Nov 2026, 09:00 CET": when Scout sent it, in the subscriber's zone. */
  sent: string;
  reasons: string[];
  /** "AI fit 90/100: …" when the model judged it. */
  fit: string | null;
  /** Null once jobs/ no longer keeps the posting: there is nothing left to give feedback on. */
  notAFitUrl: string | null;
  /** Still kept in jobs/. */
  kept: boolean;
};

/** What signs an entry's links and reads its dates: the subscriber, the app, and the clock the links are issued on. */
export type ArchiveCardContext = {
  subscriber: Pick<Subscriber, 'id' | 'linkVersion' | 'timezone'>;
  appUrl: string;
  secret: string;
  now: Date;
};

/** What the page and the feed call a posting jobs/ no longer keeps. */
export const GONE_TITLE = 'A posting Scout no longer keeps';

export function archiveCard(entry: ArchiveEntry, context: ArchiveCardContext): ArchiveCard {
  const { posting } = entry;
  const zone = context.subscriber.timezone;
  return {
    title: posting?.title || GONE_TITLE,
    url: posting?.url ?? null,
    employer: posting?.employer ?? null,
    pay: posting?.pay ?? null,
    posted: posting?.publishedAt ? `posted ${formatLocalDay(posting.publishedAt, zone)}` : null,
    sent: formatLocalMinute(entry.sentAt, zone),
    reasons: entry.reasons,
    fit: entry.fit != null ? `AI fit ${entry.fit}/100${entry.fitReason ? `: ${entry.fitReason}` : ''}` : null,
    notAFitUrl: posting
      ? notAFitUrl({
          appUrl: context.appUrl,
          uid: context.subscriber.id,
          linkVersion: context.subscriber.linkVersion,
          secret: context.secret,
          issuedAt: context.now,
          jobId: entry.jobId,
        })
      : null,
    kept: posting !== null,
  };
}

/** "Acme · Berlin · $4,000 fixed · posted 28 Nov 2026": the card's facts line, without the parts it lacks. */
export const factsLine = (card: ArchiveCard) => [card.employer, card.pay, card.posted].filter(Boolean).join(' · ');
