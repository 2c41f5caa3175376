import type { Firestore } from 'firebase-admin/firestore';
import { postingsCollection, type StoredPosting } from '../feeds/postings-collection';
import { readMany } from '../store/create-documents';

/** Postings a flush keeps once read; past this many it forgets them and reads again (memory stays bounded). */
const POSTINGS_KEPT = 20_000;

/** The postings of these job ids that are stored (or planned), by id. */
export type PostingsById = (ids: string[]) => Promise<Map<string, StoredPosting>>;

/**
 * Postings by id, for one flush: those it has not read yet in one getAll sweep, the rest as it
 * read them before (its subscribers list the same few postings over and over, and a digest
 * composed a minute later from the same read says nothing older than one composed from a fresh
 * read). A dry run's planned (unwritten) postings come from its plan, never from jobs/.
 */
export function flushPostings(db: Firestore, planned: Map<string, StoredPosting>): PostingsById {
  /** Postings read by this flush, by id (undefined: not stored): each is read once, whichever subscriber lists it first. */
  const read = new Map<string, Promise<StoredPosting | undefined>>();
  return async (ids) => {
    const jobIds = [...new Set(ids)].filter((id) => !planned.has(id));
    let unread = jobIds.filter((id) => !read.has(id));
    if (read.size + unread.length > POSTINGS_KEPT) {
      read.clear();
      unread = jobIds;
    }
    if (unread.length > 0) {
      const snaps = readMany(
        db,
        unread.map((id) => postingsCollection(db).doc(id)),
      );
      unread.forEach((id, i) =>
        read.set(
          id,
          snaps.then((s) => (s[i].exists ? s[i].data()! : undefined)),
        ),
      );
    }
    const found = await Promise.all(jobIds.map(async (id) => [id, await read.get(id)!] as const));
    return new Map([...planned, ...found.flatMap(([id, posting]) => (posting ? [[id, posting] as const] : []))]);
  };
}
