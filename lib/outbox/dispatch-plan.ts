import { ownsSubscriber, type Shard } from '../runtime/shard';
import { MAX_BATCH_EMAILS } from '../mail/mailer';
import { MAX_BATCH_BYTES } from './dispatch-stats';
import type { Lease } from './lease-row';
import { batchBytesOf, type OutboxRow } from './outbox-row';

/**
 * What the dispatcher (dispatch-outbox.ts) does with the rows it lists and the leases it gets,
 * decided from what it read: which abandoned rows are recovered as a batch and which alone, which
 * rows are leased together, and which leases go to the provider in one request. Pure, so it reads
 * as a table (test/outbox/dispatch-plan.test.ts); the dispatcher only reads, leases and sends.
 */

/** A row as the dispatcher lists it: only what leasing it needs (whole rows are read when leased). */
export type ListedRow = { emailKey: string; uid: string };

/** Without packing, rows are still leased this many per request to the store, and sent one by one. */
export const ROWS_PER_LEASE = 20;

/** Emails one provider request may carry: the operator's setting, capped by the provider's limit. */
export const providerBatchSize = (configured: number) => Math.min(configured, MAX_BATCH_EMAILS);

/** Rows leased together in one request to the store; `pack`: the never-tried ones are packed into send batches. */
export type LeaseBatch = { rows: ListedRow[]; pack: boolean };

/** An abandoned row (`sending`, its lease expired) as listed: a packed one names its send batch. */
export type AbandonedRow = ListedRow & Pick<OutboxRow, 'batchKey' | 'batchMembers'>;

/**
 * A packed send batch whose sender died is recovered whole, once per batch key, from its member list
 * (recoverBatch); any other abandoned row is leased again, alone: its earlier attempt used its own key.
 */
export function sortAbandoned(rows: AbandonedRow[]): { batches: Map<string, string[]>; lone: ListedRow[] } {
  const batches = new Map<string, string[]>();
  const lone: ListedRow[] = [];
  for (const row of rows) {
    if (row.batchKey && row.batchMembers) batches.set(row.batchKey, row.batchMembers);
    else lone.push({ emailKey: row.emailKey, uid: row.uid });
  }
  return { batches, lone };
}

/** Abandoned rows picked up alone are leased ROWS_PER_LEASE at a time, never packed. */
export const loneLeaseBatches = (rows: ListedRow[]): LeaseBatch[] =>
  inBatchesOf(rows, ROWS_PER_LEASE).map((b) => ({ rows: b, pack: false }));

/**
 * A page of pending rows: the shard's own (every row without a shard), leased a provider batch
 * at a time and packed when batching is on (`batchSize` > 1), else ROWS_PER_LEASE at a time.
 */
export function pendingLeaseBatches(rows: ListedRow[], input: { batchSize: number; shard?: Shard }): LeaseBatch[] {
  const ours = rows.filter((row) => ownsSubscriber(input.shard, row.uid));
  const pack = input.batchSize > 1;
  return inBatchesOf(ours, pack ? input.batchSize : ROWS_PER_LEASE).map((b) => ({ rows: b, pack }));
}

/** Rows of these lease batches, counted as deferred when a run stops before leasing them. */
export const rowsIn = (batches: LeaseBatch[]) => batches.reduce((n, b) => n + b.rows.length, 0);

/**
 * One provider request to make of the leases: `packed`, the rows a lease found already packed
 * together (sent as that send batch, packedSendBatch); `alone`, one row (singleSendBatch); `pack`,
 * never-tried rows to pack into a new send batch first (formBatch).
 */
export type PlannedSend = { send: 'packed'; leases: Lease[] } | { send: 'alone'; lease: Lease } | { send: 'pack'; leases: Lease[] };

/**
 * The requests one lease batch goes out in, in this order: its packed send batch; rows already tried
 * (or leased without `pack`), each alone under its own key; then the never-tried rows, in
 * provider batches of at most `batchSize` emails and MAX_BATCH_BYTES (one left over goes alone).
 */
export function planSends(leases: Lease[], input: { pack: boolean; batchSize: number }): PlannedSend[] {
  const sends: PlannedSend[] = [];
  const packed = leases.filter((l) => l.row.batchKey !== null);
  if (packed.length > 0) sends.push({ send: 'packed', leases: packed });
  const loose = leases.filter((l) => l.row.batchKey === null);
  const fresh = input.pack ? loose.filter((l) => l.row.firstAttemptAt === null) : [];
  sends.push(...loose.filter((l) => !fresh.includes(l)).map((lease) => ({ send: 'alone' as const, lease })));
  for (const batch of providerBatches(fresh, input.batchSize)) {
    sends.push(batch.length === 1 ? { send: 'alone', lease: batch[0] } : { send: 'pack', leases: batch });
  }
  return sends;
}

function inBatchesOf<T>(items: T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

/** Leases in order, cut where the next would pass `batchSize` emails or MAX_BATCH_BYTES. */
function providerBatches(leases: Lease[], batchSize: number): Lease[][] {
  const batches: Lease[][] = [];
  let current: Lease[] = [];
  let bytes = 0;
  for (const lease of leases) {
    const size = batchBytesOf(lease.row);
    if (current.length > 0 && (current.length === batchSize || bytes + size > MAX_BATCH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(lease);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
