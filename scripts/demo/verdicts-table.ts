import type { Firestore } from 'firebase-admin/firestore';
import { postingsCollection, type StoredPosting } from '../../lib/feeds/postings-collection';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { matchesCollection } from '../../lib/verdicts/match-verdict';
import { formatTable } from '../cli/format-table';

const MAX_TITLE = 48;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * `npm run demo -- --ai`: each subscriber's verdicts as stored at matches/{uid}_{jobId}, best fit
 * first, as lines to print (a table per subscriber under its address). Claims still `scoring`
 * are left out: only an answer is a verdict.
 */
export async function verdictLines(db: Firestore, emails: string[]): Promise<string[]> {
  const verdicts = (await matchesCollection(db).get()).docs.map((doc) => doc.data()).filter((m) => m.state === 'scored');
  const jobIds = [...new Set(verdicts.map((v) => v.jobId))];
  const postings = jobIds.length > 0 ? await db.getAll(...jobIds.map((id) => postingsCollection(db).doc(id))) : [];
  // Firestore's getAll drops the converter's type, not the converter: each snapshot reads as a StoredPosting.
  const titles = new Map(postings.map((snap) => [snap.id, (snap.data() as StoredPosting | undefined)?.title ?? snap.id]));

  const lines: string[] = [];
  for (const email of emails) {
    const mine = verdicts.filter((v) => v.uid === subscriberId(email)).sort((a, b) => (b.fit ?? 0) - (a.fit ?? 0));
    lines.push(`  ${email}: ${mine.length} verdict${mine.length === 1 ? '' : 's'}`);
    if (mine.length === 0) continue;
    const rows = mine.map((v) => [String(v.fit), v.model, clip(titles.get(v.jobId) ?? v.jobId, MAX_TITLE), v.reason ?? '']);
    lines.push(...formatTable(['fit', 'model', 'posting', 'reason'], rows).map((line) => `    ${line}`));
  }
  return lines;
}
