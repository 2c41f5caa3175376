import type { Firestore } from 'firebase-admin/firestore';
import { parseSourceList } from '../../lib/feeds/source-list';

/**
 * What the demo's first run read, by source: its kind, its id and how many postings it stored —
 * the sample source server serves every kind, so this shows each adapter at work.
 */
export async function sourceLines(db: Firestore, env: Record<string, string>): Promise<string[]> {
  const sources = parseSourceList({ FEED_URLS: env.FEED_URLS, SOURCES: env.SOURCES });
  const lines: string[] = [];
  let kinds = 0;
  for (const source of sources) {
    const stored = (await db.collection('jobs').where('source', '==', source.id).count().get()).data().count;
    const state = (await db.collection('feeds').doc(source.id).get()).data();
    if (stored > 0) kinds++;
    const outcome = state?.lastError ? `error: ${state.lastError}` : `${stored} posting${stored === 1 ? '' : 's'}`;
    lines.push(`  ${source.kind.padEnd(15)} ${source.id.padEnd(24)} ${outcome}`);
  }
  lines.push(`  ${kinds} of ${sources.length} sources stored postings.`);
  return lines;
}
