import type { QueryDocumentSnapshot } from 'firebase-admin/firestore';
import type { Shard } from '../runtime/shard';
import { shortHash } from '../store/short-hash';
import { deliverSendBatch, LEASE_MS, type DeliverDeps } from './deliver-send-batch';
import {
  loneLeaseBatches,
  pendingLeaseBatches,
  planSends,
  providerBatchSize,
  rowsIn,
  sortAbandoned,
  type LeaseBatch,
  type ListedRow,
} from './dispatch-plan';
import { countResult, emptyDispatchStats, MAX_BATCH_BYTES, type DispatchStats } from './dispatch-stats';
import { leaseRows, type Lease } from './lease-row';
import { releaseHeldRows } from './release-held-rows';
import { outboxCollection, type EmailKind } from './outbox-row';
import { formBatch, recoverBatch, packedSendBatch, singleSendBatch, type SendBatch } from './send-batch-lease';

/** The dispatcher needs exactly what delivering one send batch needs. */
export type DispatchDeps = DeliverDeps;

export type { DispatchStats } from './dispatch-stats';

/** Abandoned rows considered per run (recovery is rare and small; the rest waits for the next run). */
const ABANDONED_PER_RUN = 20_000;
/**
 * Pending rows are planned a page at a time: leased rows leave the `pending` query, so the next
 * page is simply the next query, and memory stays flat however long the backlog. The time
 * budget, not a row count, is what ends a long dispatch.
 */
const PENDING_PAGE = 2_000;
/**
 * Send batches leased but not yet finished. Leasing the next batch while earlier ones wait for the
 * limiter keeps the provider busy; leasing much further ahead would only hold leases (and
 * payloads in memory) for rows that cannot be sent yet.
 */
const SEND_BATCHES_AHEAD = 4;

/**
 * dispatch outbox: lease → activity check → send → record.
 * First the held rows whose time has come become pending; then the rows whose sender died (`sending`, lease expired) are resolved per their kind's
 * semantics; then pending rows are leased a batch at a time (up to 100 per provider request) and
 * each batch is sent while the next one is leased, until the rows or the time budget run out,
 * or the provider refuses a send for quota (then nothing more is leased, and what was leased is
 * handed back untried). Which rows go together is decided by dispatch-plan.ts; this function
 * reads, leases and sends.
 */
export async function dispatchOutbox(deps: DispatchDeps, input: DispatchInput): Promise<DispatchStats> {
  const run = startDispatch(deps, input);
  try {
    if (outOfTimeToList(run)) return run.stats;
    run.stats.heldDue = await releaseHeldRows(deps.db, { now: deps.clock() });
    const lone = await recoverAbandoned(run);
    if ((await leaseAndLaunch(run, loneLeaseBatches(lone))) === 'done') await dispatchPending(run);
  } finally {
    // Send batches already started finish (or are fenced) before the run records itself, even on a throw.
    await Promise.all(run.inFlight);
  }
  if (run.errors.length > 0) throw run.errors[0];
  run.stats.quota = deps.quota.hit();
  return run.stats;
}

type DispatchInput = { runId: string; maxAttempts: number; batchSize: number; shard?: Shard; pendingPageSize?: number };

/** One dispatch under way: what it counted, the kind of each row it listed, the sends it started and their errors. */
type DispatchRun = {
  deps: DispatchDeps;
  input: DispatchInput;
  /** Emails per provider request (providerBatchSize). */
  batchSize: number;
  stats: DispatchStats;
  kinds: Map<string, EmailKind>;
  inFlight: Set<Promise<void>>;
  errors: unknown[];
};

function startDispatch(deps: DispatchDeps, input: DispatchInput): DispatchRun {
  const stats = emptyDispatchStats();
  return { deps, input, batchSize: providerBatchSize(input.batchSize), stats, kinds: new Map(), inFlight: new Set(), errors: [] };
}

/** Given up before any send (the provider's key window passed): counted and logged like a failed send. */
function gaveUp(run: DispatchRun, emailKey: string, reason: string) {
  run.stats.failed += 1;
  run.deps.log('email.failed', {
    runId: run.input.runId,
    email: shortHash(emailKey, 12),
    kind: run.kinds.get(emailKey),
    status: 'failed',
    error: reason,
  });
}

function launch(run: DispatchRun, sendBatch: SendBatch) {
  const { stats, kinds, inFlight } = run;
  const tracked: Promise<void> = deliverSendBatch(run.deps, sendBatch, run.input)
    .then(({ results, retries }) => {
      stats.retried += retries;
      if (sendBatch.batch) stats.batches += 1;
      for (const [emailKey, result] of results) countResult(stats, result, kinds.get(emailKey) ?? 'alert');
    })
    .catch((error: unknown) => void run.errors.push(error))
    .finally(() => inFlight.delete(tracked));
  inFlight.add(tracked);
}

/**
 * Each listing is one query that cannot be cut short once started (on the emulator a scan of the
 * whole outbox): a run whose budget is spent does not start one, and says it left rows unlisted.
 */
function outOfTimeToList(run: DispatchRun): boolean {
  if (!run.deps.outOfTime()) return false;
  run.stats.unlisted = true;
  return true;
}

/** The rows whose sender died: each packed send batch recovered whole (and launched when it is resent); the lone rows returned, to be leased again. */
async function recoverAbandoned(run: DispatchRun): Promise<ListedRow[]> {
  const { deps, stats, kinds } = run;
  // Only the fields needed to plan are fetched here; whole rows (with their payloads) are read
  // a batch at a time when they are leased, so memory does not grow with the backlog.
  const abandoned = await outboxCollection(deps.db)
    .where('status', '==', 'sending')
    .where('leaseUntil', '<=', deps.clock())
    .select('uid', 'kind', 'batchKey', 'batchMembers')
    .limit(ABANDONED_PER_RUN)
    .get();
  for (const doc of abandoned.docs) kinds.set(doc.id, doc.get('kind') as EmailKind);
  const { batches, lone } = sortAbandoned(
    abandoned.docs.map((doc) => ({
      emailKey: doc.id,
      uid: doc.get('uid') as string,
      batchKey: (doc.get('batchKey') as string | null | undefined) ?? null,
      batchMembers: (doc.get('batchMembers') as string[] | null | undefined) ?? null,
    })),
  );
  for (const [batchKey, memberKeys] of batches) {
    // Over quota, a recovered batch would only be handed back: it waits, `sending`, for a run that can send.
    if (deps.quota.hit()) break;
    const recovered = await recoverBatch(deps.db, { batchKey, memberKeys, runId: run.input.runId, now: deps.clock(), leaseMs: LEASE_MS });
    for (const emailKey of recovered.failed) gaveUp(run, emailKey, 'unknown_outcome');
    for (const emailKey of recovered.sent) countResult(stats, 'sent', kinds.get(emailKey) ?? 'alert');
    stats.deferred += recovered.released;
    if (recovered.sendBatch) launch(run, recovered.sendBatch);
  }
  return lone;
}

/**
 * The pending rows, a page at a time. The query walks on from the last row it listed: rows
 * leased meanwhile left the range, a row released back to `pending` during this run (a refused
 * batch) waits for the next run, and a shard steps past other shards' rows instead of listing
 * them again. A run stopped by its budget leaves the rest pending (counted as deferred, so the
 * run is partial).
 */
async function dispatchPending(run: DispatchRun): Promise<void> {
  const { deps, input } = run;
  // createdAt is selected because the cursor resumes from it (a snapshot without the ordered field cannot).
  const pendingQuery = outboxCollection(deps.db).where('status', '==', 'pending').orderBy('createdAt').select('uid', 'kind', 'createdAt');
  const pageSize = input.pendingPageSize ?? PENDING_PAGE;
  let cursor: QueryDocumentSnapshot | undefined;
  for (let more = true; more;) {
    if (outOfTimeToList(run)) break;
    const page = await (cursor ? pendingQuery.startAfter(cursor) : pendingQuery).limit(pageSize).get();
    cursor = page.docs[page.docs.length - 1];
    for (const doc of page.docs) run.kinds.set(doc.id, doc.get('kind') as EmailKind);
    const rows = page.docs.map((d) => ({ emailKey: d.id, uid: d.get('uid') as string }));
    const planned = await leaseAndLaunch(run, pendingLeaseBatches(rows, { batchSize: run.batchSize, shard: input.shard }));
    more = planned === 'done' && page.size === pageSize;
  }
}

/**
 * Leases each batch of rows in turn and launches its sends, with at most SEND_BATCHES_AHEAD unfinished.
 * Stops at the first error of a send, and once the budget is spent or the provider's quota is
 * met (counting the rows not leased as deferred).
 */
async function leaseAndLaunch(run: DispatchRun, batches: LeaseBatch[]): Promise<'done' | 'stopped'> {
  const { deps, inFlight } = run;
  for (const [i, batch] of batches.entries()) {
    while (inFlight.size >= SEND_BATCHES_AHEAD) await Promise.race(inFlight);
    if (run.errors.length > 0) return 'stopped';
    if (deps.outOfTime() || deps.quota.hit()) {
      run.stats.deferred += rowsIn(batches.slice(i));
      return 'stopped';
    }
    for (const sendBatch of await leaseSendBatches(run, batch)) launch(run, sendBatch);
  }
  return 'done';
}

/** Leases one batch of rows and turns the leases into what goes to the provider, as planSends says. */
async function leaseSendBatches(run: DispatchRun, batch: LeaseBatch): Promise<SendBatch[]> {
  const { deps, stats } = run;
  const leases: Lease[] = [];
  const leased = await leaseRows(deps.db, {
    rows: batch.rows,
    batchSize: batch.rows.length,
    pack: batch.pack ? { maxBytes: MAX_BATCH_BYTES } : undefined,
    runId: run.input.runId,
    now: deps.clock(),
    leaseMs: LEASE_MS,
  });
  leased.forEach((result, i) => {
    if (result.kind === 'skipped') stats.skipped += 1;
    if (result.kind === 'failed') gaveUp(run, batch.rows[i].emailKey, result.reason);
    if (result.kind === 'leased') leases.push(result.lease);
  });
  const sendBatches: SendBatch[] = [];
  for (const planned of planSends(leases, { pack: batch.pack, batchSize: run.batchSize })) {
    if (planned.send === 'packed') sendBatches.push(packedSendBatch(planned.leases));
    else if (planned.send === 'alone') sendBatches.push(singleSendBatch(planned.lease));
    else {
      const sendBatch = await formBatch(deps.db, planned.leases);
      if (sendBatch) sendBatches.push(sendBatch);
      else stats.fenced += planned.leases.length;
    }
  }
  return sendBatches;
}
