import type { Firestore } from 'firebase-admin/firestore';
import { postingsCollection, type StoredPosting } from '../../lib/feeds/postings-collection';
import type { Posting } from '../../lib/feeds/posting';

/** Puts one posting in jobs/ as a test's starting state (the cycle's own go through storePostings). */
export async function putPosting(
  db: Firestore,
  input: Partial<Posting> & Pick<Posting, 'id' | 'title'> & { now: Date },
): Promise<StoredPosting> {
  const { now, ...fields } = input;
  const posting: StoredPosting = {
    source: fields.id.split('_')[0],
    guid: null,
    url: `https://jobs.example.com/${fields.id}`,
    description: '',
    budget: null,
    skills: [],
    publishedAt: now,
    ...fields,
    matchState: 'matched',
    runId: 'run-test',
    fetchedAt: now,
    expireAt: new Date(now.getTime() + 30 * 86_400_000),
  };
  await postingsCollection(db).doc(posting.id).set(posting);
  return posting;
}
