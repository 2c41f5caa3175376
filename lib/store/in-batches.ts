import pLimit from 'p-limit';

/**
 * Subscribers planned together from one pass of reads: a subscriber batch. Their emails are composed
 * and written a compose batch at a time within it (compose-in-batches.ts), which is what bounds the
 * bodies in memory.
 */
export const SUBSCRIBERS_PER_BATCH = 1_000;
/** Subscriber batches in progress at once: one renders (CPU) while the other waits on the store. */
const BATCHES_IN_FLIGHT = 2;

/**
 * Runs `work` over subscriber batches of SUBSCRIBERS_PER_BATCH, two at a time, started in order. Every batch is awaited before
 * this returns, even when one fails, so no write of this run lands after the run has ended.
 */
export async function inBatches<T>(items: T[], work: (batch: T[]) => Promise<unknown>, size = SUBSCRIBERS_PER_BATCH): Promise<void> {
  const limit = pLimit(BATCHES_IN_FLIGHT);
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  const settled = await Promise.allSettled(batches.map((batch) => limit(() => work(batch))));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
}
