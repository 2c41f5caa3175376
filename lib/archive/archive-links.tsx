import { archiveUrl, feedUrl } from '../subscribers/link-token';
import type { Subscriber } from '../subscribers/subscriber';
import { ARCHIVE_DAYS } from './read-archive';

/** The form action on the preferences page that revokes the private feed URL and makes a new one. */
export const REVOKE_FEED_ACTION = 'revoke-feed';
/** The form action beside it that revokes every emailed link and the feed URL (lib/subscriptions/revoke-links.ts). */
export const REVOKE_LINKS_ACTION = 'revoke-links';

export type ArchiveLinks = { archiveUrl: string; feedUrl: string };

/** The subscriber's archive link and their current private feed URL, signed as every email's links are. */
export function archiveLinksFor(input: {
  appUrl: string;
  secret: string;
  now: Date;
  subscriber: Pick<Subscriber, 'id' | 'feedTokenVersion' | 'linkVersion'>;
}): ArchiveLinks {
  const link = {
    appUrl: input.appUrl,
    uid: input.subscriber.id,
    linkVersion: input.subscriber.linkVersion,
    secret: input.secret,
    issuedAt: input.now,
  };
  return { archiveUrl: archiveUrl(link), feedUrl: feedUrl({ ...link, version: input.subscriber.feedTokenVersion ?? 0 }) };
}

/**
 * The preferences page's section for the archive and the private feed: the archive link, the feed
 * URL to paste into a reader, and one button (a form of its own, posting back to the same
 * preferences link) that revokes every feed URL given out so far and shows a new one.
 */
export function ArchiveLinksSection({ action, archiveUrl, feedUrl }: ArchiveLinks & { action: string }) {
  return (
    <section className="archive-links" aria-labelledby="archive-links-title">
      <h2 id="archive-links-title">Your archive and private feed</h2>
      <p>
        <a href={archiveUrl}>Your archive</a>: every posting Scout sent you in the last {ARCHIVE_DAYS} days, searchable.
      </p>
      <div className="field">
        <label htmlFor="feed-url">Private feed (Atom)</label>
        <p className="hint" id="feed-url-hint">
          Follow Scout in a feed reader: add this address. It is private: anyone who has it can read your matches.
        </p>
        <input type="text" id="feed-url" readOnly value={feedUrl} aria-describedby="feed-url-hint" />
      </div>
      <form method="post" action={action} className="status-form">
        <input type="hidden" name="action" value={REVOKE_FEED_ACTION} />
        <p>Shared it by mistake? Revoke it: every feed address Scout gave you stops working at once, and you get a new one.</p>
        <button type="submit" className="secondary">
          Revoke and make a new feed URL
        </button>
      </form>
      <form method="post" action={action} className="status-form">
        <input type="hidden" name="action" value={REVOKE_LINKS_ACTION} />
        <p>
          Forwarded a Scout email, or think someone has your links? Revoke them all: every link Scout has emailed you and your feed URL stop
          working at once, this page’s too. Ask for a new one from the signup form; Scout emails it to you.
        </p>
        <button type="submit" className="secondary">
          Revoke my links
        </button>
      </form>
    </section>
  );
}
