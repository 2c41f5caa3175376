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

/**
 * A posting first stored `hoursAgo` before now, as the preview reads the last 7 days: `board_{n}`,
 * matched, from a run of that hour. For the browser tests, whose app runs on the real clock.
 */
export function postingHoursAgo(n: number, title: string, hoursAgo: number, extra: Partial<StoredPosting> = {}): StoredPosting {
  const id = `board_${n}`;
  const at = new Date(Date.now() - hoursAgo * 3_600_000);
  return {
    id,
    source: 'board',
    guid: null,
    title,
    url: `https://jobs.example.com/${id}`,
    description: '',
    budget: null,
    skills: [],
    publishedAt: at,
    matchState: 'matched',
    runId: `run-${Math.floor(hoursAgo)}`,
    fetchedAt: at,
    expireAt: new Date(Date.now() + 30 * 86_400_000),
    canonicalId: id,
    ...extra,
  };
}
