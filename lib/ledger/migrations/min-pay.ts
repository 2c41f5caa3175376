import { migrateMinPay } from '../../subscribers/migrate-min-pay';
import type { Migration } from './migration';

/**
 * Subscribers from before per-kind minimums hold one number, `minBudget`. Readers take it as the
 * fixed minimum in USD (readMinPay), so nothing a subscriber receives waits on this step; it
 * rewrites each such document as `minPay` so that the old field can go (migrate-min-pay.ts). Its
 * walk finds only documents that still hold the field, so a resumed run needs no cursor.
 */
export const minPay: Migration = {
  version: 4,
  name: 'min-pay',
  changes: "rewrites each subscriber's old `minBudget` as `minPay.fixed` in USD and deletes `minBudget`",
  why: 'one shape of the minimum pay in users/, so that no reader keeps the fallback for the old field',
  async apply(ctx) {
    const report = await migrateMinPay(ctx.db, { dryRun: ctx.dryRun, onProgress: () => ctx.checkpoint(null) });
    return { changed: report.changed };
  },
};
