import { migrateQueries } from '../../subscribers/migrate-queries';
import type { Migration } from './migration';

/**
 * Subscribers from before search queries hold only keyword lists. Readers take such a document's
 * lists as its query (queryOf), so nothing a subscriber receives waits on this step; it stores each
 * one's canonical query text so that every document says its subscription the one way the pages,
 * the model's input and the reasons read it (migrate-queries.ts). Firestore cannot ask for
 * documents missing a field, so the walk is every subscriber in id order, resumed from its checkpoint.
 */
export const queries: Migration = {
  version: 5,
  name: 'queries',
  changes: "stores each keyword subscription's canonical query text in `users/{uid}.query` (no match index write)",
  why: 'one shape of a subscription in users/: its query, beside the keyword lists the simple form edits',
  async apply(ctx) {
    const report = await migrateQueries(ctx.db, {
      dryRun: ctx.dryRun,
      resumeAfter: ctx.resumeAfter,
      onProgress: (_report, lastUid) => ctx.checkpoint(ctx.dryRun ? null : lastUid),
    });
    return {
      changed: report.changed,
      ...(report.withoutKeywords > 0 ? { note: `${report.withoutKeywords} subscribers without keywords were left as they are` } : {}),
    };
  },
};
