import { FieldPath, type DocumentSnapshot, type Firestore } from 'firebase-admin/firestore';
import { keywordQueryText } from '../query/subscriber-query';
import { guardedSubscriberUpdate } from './subscriber-writes';
import { subscribersCollection } from './subscriber';

export type QueryMigrationReport = {
  dryRun: boolean;
  /** users/ documents read. */
  read: number;
  /** Documents this run gave their query (dry run: would give). */
  changed: number;
  /** Documents without a query and without a keyword to make one of (left as they are; they match nothing, as before). */
  withoutKeywords: number;
};

/** users/ documents read per query. */
export const QUERY_MIGRATION_BATCH_SIZE = 200;

/**
 * `scout users migrate-queries`: gives every subscriber stored without a `query` the canonical
 * text of their keyword lists (`react OR "react native" -wordpress`, docs/query.md), so every
 * document says its subscription the one way the pages, the model's input and the reasons read it.
 *
 * Nothing a subscriber receives changes: a document without a query is already matched as its
 * keyword lists (queryOf), and the canonical text is recognised as those lists and matched by
 * building them, never by parsing (so lists past a typed query's bounds are kept whole). So the
 * match index entry is the same before and after (no index write), `profileVersion` and
 * `updatedAt` stay, and it may run any time after the deploy. A test compares what keyword
 * subscriptions received before queries with what they receive after, over every real posting.
 *
 * Each document is written by guardedSubscriberUpdate from a fresh read under the guard, so a
 * save between the page read and the write is decided again (a subscriber who just wrote a query
 * keeps it). Idempotent: Firestore cannot ask for documents missing a field, so every run walks
 * users/ in id order; a document that has a query is left alone, and a second run reports 0 changed.
 */
export async function migrateQueries(
  db: Firestore,
  input: {
    dryRun: boolean;
    batchSize?: number;
    /** The last uid a run that did not finish had done (`scout migrate` resumes from its checkpoint). */
    resumeAfter?: string | null;
    /** After each page: the report so far and the last uid done. */
    onProgress?: (report: QueryMigrationReport, lastUid: string) => unknown;
  },
): Promise<QueryMigrationReport> {
  const batchSize = input.batchSize ?? QUERY_MIGRATION_BATCH_SIZE;
  const report: QueryMigrationReport = { dryRun: input.dryRun, read: 0, changed: 0, withoutKeywords: 0 };
  let after: DocumentSnapshot | string | null = input.resumeAfter ?? null;
  for (;;) {
    // Raw documents, only the fields the decision needs: the walk reads every subscriber.
    let page = db.collection(subscribersCollection(db).path).select('query', 'keywords').orderBy(FieldPath.documentId()).limit(batchSize);
    // A snapshot within this walk; the uid of a checkpoint when resumed (the order is by document id).
    if (after) page = page.startAfter(after);
    const snap = await page.get();
    if (snap.empty) break;
    for (const doc of snap.docs) {
      report.read += 1;
      if (typeof doc.get('query') === 'string') continue;
      const keywords = doc.get('keywords') as unknown;
      if (!Array.isArray(keywords) || keywords.length === 0) report.withoutKeywords += 1;
      else if (input.dryRun) report.changed += 1;
      else if (await migrateOne(db, doc.id)) report.changed += 1;
    }
    after = snap.docs[snap.docs.length - 1];
    await input.onProgress?.({ ...report }, after.id);
    if (snap.size < batchSize) break;
  }
  return report;
}

/** One subscriber, from a fresh read under the guard; false when it has a query by now (or nothing to make one of). */
function migrateOne(db: Firestore, uid: string): Promise<boolean> {
  return guardedSubscriberUpdate<boolean>(
    subscribersCollection(db).doc(uid),
    (snap) => {
      const keywords = snap.get('keywords') as string[] | undefined;
      const excludes = (snap.get('excludes') as string[] | undefined) ?? [];
      if (!snap.exists || typeof snap.get('query') === 'string' || !keywords?.length) return { done: false };
      // updatedAt is the subscriber's own last change; this is not one, so it stays.
      return { update: { query: keywordQueryText(keywords, excludes) }, result: true };
    },
    { action: 'giving it its query' },
  );
}
