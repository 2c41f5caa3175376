import { readFileSync } from 'node:fs';
import { FieldPath, type Firestore, type Timestamp } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../../lib/store/collections';
import { documentSize, indexEntryBytes, type IndexConfig } from '../../lib/store/firestore-limits';

/**
 * What the store holds at the end of the bench's day, sized as Firestore bills storage: every
 * document by the documented storage-size rules, plus its index entries under the real
 * firestore.indexes.json (lib/store/firestore-limits.ts). Grouped by the unit of work that leaves
 * the document behind, with how long it stays (its `expireAt` after its `createdAt`), so the bill
 * can hold a realistic day's worth for as long as the TTL keeps it.
 */
export type StoredKind = 'delivery' | 'alert' | 'digest' | 'posting' | 'run' | 'subscriber' | 'fixed';
export type Stored = {
  documents: number;
  /** Documents of the kind's own collection (deliveries, email rows of the kind, jobs, runs, users): what `bytes` is shared over. */
  units: number;
  /** Documents and index entries together, in bytes. */
  bytes: number;
  indexBytes: number;
  /** The average days a document of this kind stays; null for documents kept until changed (subscribers, feed state). */
  keptDays: number | null;
};
export type StoredBytes = Record<StoredKind, Stored>;

type Tally = Omit<Stored, 'keptDays'>;
const emptyTally = () => ({ read: 0, byKind: {} as Partial<Record<StoredKind, Tally>> });

const indexConfig = (): IndexConfig =>
  JSON.parse(readFileSync(new URL('../../firestore.indexes.json', import.meta.url), 'utf8')) as IndexConfig;

/** The unit of work a document grows with (bill.ts's units, plus the subscribers themselves and what is fixed). */
export function storedKindOf(collection: string, data: Record<string, unknown>): StoredKind {
  switch (collection) {
    case COLLECTIONS.deliveries:
    case COLLECTIONS.nearMisses:
    case COLLECTIONS.matches:
      return 'delivery';
    case COLLECTIONS.emails:
      return data.kind === 'digest' ? 'digest' : 'alert';
    case COLLECTIONS.postings:
    case COLLECTIONS.postingKeys:
      return 'posting';
    case COLLECTIONS.runs:
      return 'run';
    case COLLECTIONS.subscribers:
    case COLLECTIONS.matchIndex:
      return 'subscriber';
    default:
      return 'fixed';
  }
}

/** The collection whose documents count a kind's units: a near miss or a verdict is paid for per delivery, a posting key per posting. */
const UNIT_COLLECTIONS = new Set<string>([
  COLLECTIONS.deliveries,
  COLLECTIONS.emails,
  COLLECTIONS.postings,
  COLLECTIONS.runs,
  COLLECTIONS.subscribers,
]);

const PAGE = 2_000;
/**
 * Documents read of one collection, at most: past it, the collection's figures are the sample's
 * scaled by its count(). Paging a collection of 500,000 deliveries by id (U=100,000) took the
 * emulator longer than the bench's whole day; a sample of 50,000 sizes a unit as well.
 */
const SAMPLE = 50_000;
const DAY_MS = 86_400_000;
const millis = (value: unknown) => (value && typeof (value as Timestamp).toMillis === 'function' ? (value as Timestamp).toMillis() : null);

/** Reads every document of every collection (outside the runs' counts), or a sample of a large one, and sizes it. */
export async function measureStoredBytes(db: Firestore, options: { sample?: number; page?: number } = {}): Promise<StoredBytes> {
  const { sample = SAMPLE, page: pageSize = PAGE } = options;
  const config = indexConfig();
  const out = Object.fromEntries(
    (['delivery', 'alert', 'digest', 'posting', 'run', 'subscriber', 'fixed'] as StoredKind[]).map((k) => [
      k,
      { documents: 0, units: 0, bytes: 0, indexBytes: 0, keptDays: null },
    ]),
  ) as StoredBytes;
  const keptSum: Partial<Record<StoredKind, { days: number; n: number }>> = {};
  for (const collection of await db.listCollections()) {
    const seen = emptyTally();
    const size = (docs: FirebaseFirestore.QueryDocumentSnapshot[]) => {
      for (const doc of docs) {
        const data = doc.data();
        const kind = storedKindOf(collection.id, data);
        const index = indexEntryBytes(collection.id, doc.id, data, config);
        const t = (seen.byKind[kind] ??= { documents: 0, units: 0, bytes: 0, indexBytes: 0 });
        t.documents += 1;
        if (UNIT_COLLECTIONS.has(collection.id)) t.units += 1;
        t.bytes += documentSize(collection.id, doc.id, data) + index;
        t.indexBytes += index;
        const [created, expires] = [millis(data.createdAt ?? data.fetchedAt ?? data.startedAt), millis(data.expireAt)];
        if (created !== null && expires !== null) {
          const sum = (keptSum[kind] ??= { days: 0, n: 0 });
          sum.days += (expires - created) / DAY_MS;
          sum.n += 1;
        }
      }
      seen.read += docs.length;
    };
    const byId = collection.orderBy(FieldPath.documentId());
    const count = (await collection.count().get()).data().count;
    if (count <= sample) {
      // Every document, a page at a time.
      for (let last: string | undefined; ;) {
        const page = await (last ? byId.startAfter(last) : byId).limit(pageSize).get();
        size(page.docs);
        if (page.size < pageSize) break;
        last = page.docs[page.docs.length - 1].id;
      }
    } else {
      // Pages spread evenly over the ids, not the first ones: ids lead with a kind (`alert_…` before
      // `digest_…`), so the first 50,000 emails of a large store were all alerts.
      const pages = Math.ceil(sample / pageSize);
      const stride = Math.floor(count / pages);
      for (let i = 0; i < pages; i++)
        size(
          (
            await byId
              .offset(i * stride)
              .limit(pageSize)
              .get()
          ).docs,
        );
    }
    const scale = seen.read === 0 ? 1 : count / seen.read;
    for (const [kind, t] of Object.entries(seen.byKind) as [StoredKind, Tally][]) {
      out[kind].documents += t.documents * scale;
      out[kind].units += t.units * scale;
      out[kind].bytes += t.bytes * scale;
      out[kind].indexBytes += t.indexBytes * scale;
    }
  }
  for (const [kind, sum] of Object.entries(keptSum)) out[kind as StoredKind].keptDays = sum.n > 0 ? sum.days / sum.n : null;
  return out;
}
