import type { Firestore } from 'firebase-admin/firestore';
import { allIndexShards, entryForStored, readIndexShards, type IndexEntry } from '../../lib/subscribers/match-index';
import { readIndexLayout } from '../../lib/subscribers/match-index-layout';

/** Every entry of the match index (the layout in force), by uid, as stored. */
export async function indexEntries(db: Firestore): Promise<Map<string, IndexEntry>> {
  const count = (await readIndexLayout(db)).shards;
  const shards = await readIndexShards(db, allIndexShards(count), count);
  return new Map(shards.flatMap((s) => [...s.profiles]));
}

/** The entries users/ calls for: one per active subscriber, made from their document as stored now. */
export async function entriesCalledFor(db: Firestore): Promise<Map<string, IndexEntry>> {
  const users = await db.collection('users').get();
  const wanted = new Map<string, IndexEntry>();
  for (const doc of users.docs) {
    const entry = entryForStored(doc.id, doc.data());
    if (entry !== undefined) wanted.set(doc.id, entry);
  }
  return wanted;
}

/** The index and users/ agree, entry for entry (as sorted objects, so a failure shows the difference). */
export async function indexDrift(db: Firestore): Promise<{ index: Record<string, IndexEntry>; users: Record<string, IndexEntry> }> {
  const sorted = (m: Map<string, IndexEntry>) => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)));
  return { index: sorted(await indexEntries(db)), users: sorted(await entriesCalledFor(db)) };
}
