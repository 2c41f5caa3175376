import type { Firestore } from 'firebase-admin/firestore';
import { pageHandler } from '../http/page-handler';
import type { Config } from '../runtime/config';
import { maskEmail, silentLogger, type Logger } from '../runtime/logger';
import { archiveBadQueryPage, archiveListPage, archiveNotFoundPage, archiveServerErrorPage } from './archive-page';
import { parseArchiveQuery, searchTermsOf } from './archive-search';
import { openPrivateLink } from './open-private-link';
import { readArchive } from './read-archive';

export type ArchiveDeps = {
  db: Firestore;
  config: Pick<Config, 'LINK_SECRET' | 'APP_URL'>;
  now: Date;
  log?: Logger;
};

/**
 * GET /archive?token=&q=&before=: what Scout sent the subscriber in the last 30 days, searchable
 * and in pages of 20. The signed token (purpose `archive`, in every email's footer) is the whole
 * credential; the page only reads. A link that opens nothing is a 404 that names nobody.
 */
export const handleArchiveRequest = pageHandler<ArchiveDeps>({
  name: 'archive',
  methods: { GET: show },
  errorPage: archiveServerErrorPage,
});

async function show(request: Request, deps: ArchiveDeps): Promise<Response> {
  const url = new URL(request.url);
  const link = await openPrivateLink(deps.db, {
    token: url.searchParams.get('token'),
    purpose: 'archive',
    secret: deps.config.LINK_SECRET,
    now: deps.now,
  });
  if (!link.ok) {
    (deps.log ?? silentLogger)('archive.refused', { reason: link.refused });
    return archiveNotFoundPage();
  }
  const query = parseArchiveQuery(url);
  if (!query.success) {
    const errors = query.error.issues.map((issue) => `${issue.path.join('.') === 'q' ? 'Search' : 'Page'}: ${issue.message}`);
    return archiveBadQueryPage({ token: link.token, errors });
  }
  const { q, before } = query.data;
  const page = await readArchive(deps.db, { uid: link.subscriber.id, now: deps.now, terms: searchTermsOf(q), before });
  return archiveListPage({
    token: link.token,
    maskedEmail: link.subscriber.email ? maskEmail(link.subscriber.email) : null,
    q,
    before,
    page,
    cards: { subscriber: link.subscriber, appUrl: deps.config.APP_URL, secret: deps.config.LINK_SECRET, now: deps.now },
  });
}
