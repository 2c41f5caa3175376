import { ErrorPage, Page, pageResponse, serverErrorResponse } from '../http/page';
import { formatArchiveCursor, type ArchiveCursor } from './archive-cursor';
import { MAX_SEARCH_LENGTH } from './archive-search';
import { archiveCard, factsLine, type ArchiveCardContext } from './archive-card';
import { ARCHIVE_DAYS, ARCHIVE_SCAN_LIMIT, type ArchiveEntry, type ArchivePage } from './read-archive';

/**
 * The pages of /archive: the list (a search box, one card per posting sent, pages of 20), and the
 * answers when there is nothing to show. Plain HTML without script; React escapes every value,
 * so a posting's title or a reason can never become markup.
 */

export type ArchiveView = {
  token: string;
  maskedEmail: string | null;
  q: string;
  /** Where this page started; null on the first. */
  before: ArchiveCursor | null;
  page: ArchivePage;
  /** Whose archive it is, for each card's "Not a fit" link and its dates in their time zone. */
  cards: ArchiveCardContext;
};

/** How each mode reads on a card; a mode Scout learns later shows as it is stored. */
const MODE_LABELS: Record<string, string> = {
  instant: 'instant alert',
  daily: 'daily digest',
  weekly: 'weekly digest',
  feed: 'private feed',
};

/** A link to a page of this archive: the token always, the search and the cursor when there are any. */
export function archiveHref(input: { token: string; q?: string; before?: ArchiveCursor | null }): string {
  const params = new URLSearchParams({ token: input.token });
  if (input.q) params.set('q', input.q);
  if (input.before) params.set('before', formatArchiveCursor(input.before));
  return `/archive?${params}`;
}

export function ArchiveListView({ token, maskedEmail, q, before, page, cards }: ArchiveView) {
  const searching = q !== '';
  return (
    <Page title={searching ? `“${q}” · Your archive` : 'Your archive'} layout="card archive">
      <h1>Your Scout archive</h1>
      <p>
        Every posting Scout sent
        {maskedEmail ? (
          <>
            {' to '}
            <strong>{maskedEmail}</strong>
          </>
        ) : null}{' '}
        in the last {ARCHIVE_DAYS} days, newest first, with why it was sent.
      </p>
      <form method="get" action="/archive" role="search" className="archive-search">
        <input type="hidden" name="token" value={token} />
        <label htmlFor="q">Search titles, employers and reasons</label>
        <div className="archive-search-row">
          <input type="search" id="q" name="q" defaultValue={q} maxLength={MAX_SEARCH_LENGTH} autoComplete="off" />
          <button type="submit">Search</button>
        </div>
      </form>
      {searching ? (
        <p className="archive-status" role="status">
          {page.entries.length === 0 && !page.cutShort ? 'Nothing sent to you matches ' : 'Postings that match '}“{q}”.{' '}
          <a href={archiveHref({ token })}>Show everything</a>
        </p>
      ) : null}
      {page.entries.length > 0 ? (
        <ol className="archive-list">
          {page.entries.map((entry) => (
            <ArchiveCard key={entry.id} entry={entry} context={cards} />
          ))}
        </ol>
      ) : !searching && !page.cutShort ? (
        <p className="archive-status">
          {before ? 'Nothing older was sent to you.' : `Scout sent you nothing in the last ${ARCHIVE_DAYS} days.`}
        </p>
      ) : null}
      {page.cutShort ? (
        <p className="archive-status">
          Scout looks through {ARCHIVE_SCAN_LIMIT} postings at a time and stopped here. Older ones may match too: use “Older”.
        </p>
      ) : null}
      <nav className="archive-pages" aria-label="Archive pages">
        {before ? <a href={archiveHref({ token, q })}>← Newest</a> : null}
        {page.next ? (
          <a href={archiveHref({ token, q, before: page.next })} rel="next">
            Older →
          </a>
        ) : null}
      </nav>
    </Page>
  );
}

/** One posting sent: what its email's card showed (who, where, pay, when posted, why), when and how it was sent, and "Not a fit". */
function ArchiveCard({ entry, context }: { entry: ArchiveEntry; context: ArchiveCardContext }) {
  const card = archiveCard(entry, context);
  const mode = MODE_LABELS[entry.mode] ?? entry.mode;
  const facts = factsLine(card);
  return (
    <li className="archive-entry">
      <h2>
        {card.url ? (
          <a href={card.url} rel="noopener noreferrer">
            {card.title}
          </a>
        ) : (
          card.title
        )}
      </h2>
      {facts ? <p className="archive-facts">{facts}</p> : null}
      <p className="archive-meta">
        Sent <time dateTime={entry.sentAt.toISOString()}>{card.sent}</time>
        {' · '}
        {mode}
      </p>
      {card.reasons.length > 0 ? <p className="archive-why">Why: {card.reasons.join('; ')}</p> : null}
      {card.fit ? <p className="archive-why">{card.fit}</p> : null}
      {card.notAFitUrl ? (
        <p className="archive-not-a-fit">
          <a href={card.notAFitUrl} rel="nofollow">
            Not a fit
          </a>
        </p>
      ) : null}
    </li>
  );
}

export const archiveListPage = (view: ArchiveView) => pageResponse(<ArchiveListView {...view} />, { status: 200 });

/**
 * Every link that opens no archive — tampered, expired, for something else, a subscriber who left
 * or never was — gets this same 404: it names nobody and does not say which it was.
 */
export const archiveNotFoundPage = () =>
  pageResponse(
    <ErrorPage title="Nothing to show">
      <p>This link does not open an archive. It may be incomplete, too old, or no longer valid.</p>
      <p>Open “Your archive” from the bottom of a recent Scout email.</p>
    </ErrorPage>,
    { status: 404 },
  );

/** A search or page link the archive could not read: 400, what was wrong, and the way back to the first page. */
export const archiveBadQueryPage = (input: { token: string; errors: string[] }) =>
  pageResponse(
    <ErrorPage title="That page could not be read">
      <ul>
        {input.errors.map((error) => (
          <li key={error}>{error}</li>
        ))}
      </ul>
      <p>
        <a href={archiveHref({ token: input.token })}>Back to your archive</a>
      </p>
    </ErrorPage>,
    { status: 400 },
  );

export const archiveServerErrorPage = () => serverErrorResponse('Your archive could not be loaded.');
