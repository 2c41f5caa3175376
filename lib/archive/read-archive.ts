import { FieldPath, Timestamp, type DocumentData, type DocumentSnapshot, type Firestore } from 'firebase-admin/firestore';
import { postingsCollection } from '../feeds/postings-collection';
import { toPostingLink } from '../feeds/safe-url';
import { deliveriesCollection, deliveryId, type Delivery } from '../ledger/delivery';
import { cleanPostingTitle } from '../feeds/clean-posting-text';
import { PAY_KINDS, type Budget, type PayKind } from '../pay/pay';
import { employerLine, formatBudget } from '../mail/compose-email';
import { outboxCollection } from '../outbox/outbox-row';
import { addDays, toDate } from '../store/timestamps';
import type { ArchiveCursor } from './archive-cursor';
import { matchesSearch, type SearchTerms } from './archive-search';

/** The archive shows what was sent in the last 30 days (the ledger keeps RETENTION_DAYS, 30 by default). */
export const ARCHIVE_DAYS = 30;
export const ARCHIVE_PAGE_SIZE = 20;
/**
 * The bound on one request: it reads at most this many deliveries (and, when searching, the
 * postings of the sent ones among them), whatever the subscriber's ledger holds. A page that
 * reaches it before it is full is cut short and says so; its "Older" link goes on from the last
 * delivery read. 300 is a month of ten postings a day.
 */
export const ARCHIVE_SCAN_LIMIT = 300;
/** Deliveries read per query while searching: most of them may not match, so bigger steps than a page. */
const SEARCH_STEP = 100;
/**
 * How long before its send a posting may have been found. The ledger is read by `createdAt` (the
 * claim, index uid + createdAt desc), the window is on the send: an instant alert and a feed item
 * are sent within minutes of their claim, a digest item the next morning.
 */
const FOUND_BEFORE_SENT_DAYS = 2;

/**
 * The posting an entry is about, as far as the archive shows it; null when jobs/ no longer keeps
 * it. `title` as a card shows it (cardTitle: without the site's name or the employer's around it).
 */
export type ArchivePosting = {
  title: string;
  url: string | null;
  employer: string | null;
  /** "$4,000 fixed", "$40.00–$60.00/hour"; null when it states none. */
  pay: string | null;
  publishedAt: Date | null;
  description: string | null;
};

export type ArchiveEntry = {
  /** The delivery's id, `{uid}_{jobId}`. */
  id: string;
  jobId: string;
  /** How it was sent: 'instant', 'daily', and whatever modes come (any string is shown as it is). */
  mode: string;
  createdAt: Date;
  sentAt: Date;
  posting: ArchivePosting | null;
  /** The keyword reasons kept on the delivery, and the model's verdict when it gave one: the "reason" of each entry. */
  reasons: string[];
  fit: number | null;
  fitReason: string | null;
};

export type ArchivePage = {
  entries: ArchiveEntry[];
  /** Where the next (older) page starts; null when the window holds nothing older. */
  next: ArchiveCursor | null;
  /** Deliveries read for this page: never more than the scan limit. */
  scanned: number;
  /** The scan limit stopped the read before the page was full: older entries may still match. */
  cutShort: boolean;
};

/** An entry as the ledger tells it, before its posting is joined. */
export type SentItem = Omit<ArchiveEntry, 'posting'>;

/** A page read from the ledger, before the postings it shows are joined (`withPostings`). */
export type ArchiveScan = Omit<ArchivePage, 'entries'> & {
  items: SentItem[];
  /** The postings a search already read, by job id (null: no longer kept). */
  postings: Map<string, ArchivePosting | null>;
  withDescription: boolean;
};

export type ArchiveRead = {
  uid: string;
  now: Date;
  terms?: SearchTerms;
  before?: ArchiveCursor | null;
  pageSize?: number;
  scanLimit?: number;
  withDescription?: boolean;
};

/**
 * One page of what Scout sent a subscriber: their deliveries whose email went out (a digest's
 * items are marked `sent`, as is a feed-only item; an instant alert's items stay `sending` and
 * take the outcome of their alert's outbox row, so a `sent` row counts and the row's `sentAt` is
 * theirs), sent in the last ARCHIVE_DAYS, newest first, joined with their postings. `terms`
 * keeps only entries whose title, employer or reasons hold every term. Reads are bounded: at most
 * `scanLimit` (ARCHIVE_SCAN_LIMIT) deliveries, their alerts' rows (status and sentAt only), and
 * at most as many postings (title, link, employer; the description only `withDescription`).
 */
export async function readArchive(db: Firestore, input: ArchiveRead): Promise<ArchivePage> {
  return withPostings(db, await scanArchive(db, input));
}

/**
 * The ledger half of readArchive: which entries the page holds. The private feed decides from it
 * alone whether the reader's copy is current, and reads no posting when it is.
 */
export async function scanArchive(db: Firestore, input: ArchiveRead): Promise<ArchiveScan> {
  const pageSize = input.pageSize ?? ARCHIVE_PAGE_SIZE;
  const scanLimit = input.scanLimit ?? ARCHIVE_SCAN_LIMIT;
  const terms = input.terms ?? [];
  const withDescription = input.withDescription ?? false;
  const windowStart = addDays(input.now, -ARCHIVE_DAYS);
  const step = terms.length > 0 ? SEARCH_STEP : pageSize + 1;
  const postings = new Map<string, ArchivePosting | null>();

  const kept: SentItem[] = [];
  let cursor = input.before ?? null;
  let scanned = 0;
  let exhausted = false;
  while (kept.length <= pageSize) {
    const take = Math.min(step, scanLimit - scanned);
    if (take <= 0) break;
    let query = deliveriesCollection(db)
      .where('uid', '==', input.uid)
      .where('createdAt', '>=', addDays(windowStart, -FOUND_BEFORE_SENT_DAYS))
      .orderBy('createdAt', 'desc')
      .orderBy(FieldPath.documentId(), 'desc');
    if (cursor) query = query.startAfter(Timestamp.fromDate(cursor.createdAt), deliveryId(input.uid, cursor.jobId));
    const deliveries = (await query.limit(take).get()).docs.map((doc) => doc.data());
    scanned += deliveries.length;
    const last = deliveries.at(-1);
    if (last) cursor = { createdAt: last.createdAt, jobId: last.jobId };

    const sent = (await sentItems(db, deliveries)).filter((item) => item.sentAt.getTime() >= windowStart.getTime());
    if (terms.length > 0) {
      await readPostings(db, sent, postings, withDescription);
      kept.push(...sent.filter((item) => matchesSearch(searchable(item, postings.get(item.jobId) ?? null), terms)));
    } else {
      kept.push(...sent);
    }
    if (deliveries.length < take) {
      exhausted = true;
      break;
    }
  }

  const items = kept.slice(0, pageSize);
  const full = kept.length > pageSize;
  const lastShown = items.at(-1);
  return {
    items,
    postings,
    withDescription,
    next: full && lastShown ? { createdAt: lastShown.createdAt, jobId: lastShown.jobId } : exhausted ? null : cursor,
    scanned,
    cutShort: !full && !exhausted,
  };
}

/** The scan's entries with their postings: one getAll for those a search did not read already. */
export async function withPostings(db: Firestore, scan: ArchiveScan): Promise<ArchivePage> {
  await readPostings(db, scan.items, scan.postings, scan.withDescription);
  return {
    entries: scan.items.map((item) => ({ ...item, posting: scan.postings.get(item.jobId) ?? null })),
    next: scan.next,
    scanned: scan.scanned,
    cutShort: scan.cutShort,
  };
}

/** The text a search looks in: the posting's title and employer, and why it was sent. */
const searchable = (item: SentItem, posting: ArchivePosting | null) =>
  [posting?.title ?? '', posting?.employer ?? '', ...item.reasons, item.fitReason ?? ''].join('\n');

/**
 * The deliveries among these whose email went out, with when. A digest or feed item says so
 * itself (`sent`, sentAt); an instant item is `sending` for good and its alert's row says (one
 * getAll, status and sentAt only: the rows' stored payloads stay in the store).
 */
async function sentItems(db: Firestore, deliveries: Delivery[]): Promise<SentItem[]> {
  const keys = [...new Set(deliveries.filter((d) => d.status === 'sending' && d.emailKey).map((d) => d.emailKey!))];
  const rows =
    keys.length > 0
      ? await db.getAll(...keys.map((key) => outboxCollection(db).withConverter<DocumentData>(null).doc(key)), {
          fieldMask: ['status', 'sentAt'],
        })
      : [];
  const rowSentAt = new Map<string, Date | null>(
    rows.map((row) => [row.id, row.get('status') === 'sent' ? (toDate(row.get('sentAt')) ?? null) : null]),
  );
  return deliveries.flatMap((d): SentItem[] => {
    const sentAt =
      d.status === 'sent' ? (d.sentAt ?? d.createdAt) : d.status === 'sending' && d.emailKey ? (rowSentAt.get(d.emailKey) ?? null) : null;
    if (!sentAt) return [];
    return [
      {
        id: deliveryId(d.uid, d.jobId),
        jobId: d.jobId,
        mode: String(d.mode),
        createdAt: d.createdAt,
        sentAt,
        reasons: d.reasons,
        fit: d.fit ?? null,
        fitReason: d.fitReason ?? null,
      },
    ];
  });
}

const POSTING_FIELDS = ['title', 'url', 'company', 'location', 'remote', 'budget', 'publishedAt', 'sightings'];

/** The postings of these items not read yet, into `into`: one getAll, only the fields the archive shows. */
async function readPostings(db: Firestore, items: SentItem[], into: Map<string, ArchivePosting | null>, withDescription: boolean) {
  const missing = [...new Set(items.map((item) => item.jobId))].filter((id) => !into.has(id));
  if (missing.length === 0) return;
  const fieldMask = withDescription ? [...POSTING_FIELDS, 'description'] : POSTING_FIELDS;
  const snaps = await db.getAll(...missing.map((id) => postingsCollection(db).withConverter<DocumentData>(null).doc(id)), { fieldMask });
  snaps.forEach((snap, i) => into.set(missing[i], snap.exists ? archivePostingOf(snap, withDescription) : null));
}

function archivePostingOf(snap: DocumentSnapshot, withDescription: boolean): ArchivePosting {
  const text = (field: string) => {
    const value: unknown = snap.get(field);
    return typeof value === 'string' ? value : null;
  };
  const company = text('company');
  const sightings: unknown = snap.get('sightings');
  const labels = Array.isArray(sightings)
    ? sightings.flatMap((s: { label?: unknown }) => (typeof s?.label === 'string' ? [s.label] : []))
    : [];
  const budget: unknown = snap.get('budget');
  return {
    title: cleanPostingTitle(text('title') ?? '', { sources: labels, company }),
    // Stored links were made safe when fetched; checked again, as this one becomes an href (and a
    // posting stored before private links were dropped may still hold one).
    url: toPostingLink(text('url'), null),
    employer: employerLine({ company, location: text('location'), remote: snap.get('remote') === true ? true : null }),
    pay: isBudget(budget) ? formatBudget(budget) : null,
    publishedAt: toDate(snap.get('publishedAt')) ?? null,
    description: withDescription ? (text('description') ?? '') : null,
  };
}

/** A stored budget as the converter would read it: the archive reads fields by mask, past the converter. */
function isBudget(value: unknown): value is Budget {
  const budget = value as Partial<Budget> | null;
  return (
    typeof budget === 'object' &&
    budget !== null &&
    typeof budget.amount === 'number' &&
    (typeof budget.currency === 'string' || budget.currency === null) &&
    PAY_KINDS.includes(budget.kind as PayKind)
  );
}
