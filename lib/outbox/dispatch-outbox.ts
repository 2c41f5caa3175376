import type { QueryDocumentSnapshot } from 'firebase-admin/firestore';
import { ownsSubscriber, type Shard } from '../runtime/shard';
import { shortHash } from '../store/short-hash';
import { MAX_BATCH_EMAILS } from '../mail/mailer';
import { deliverUnit, LEASE_MS, type DeliverDeps } from './deliver-unit';
import { countResult, emptyDispatchStats, MAX_BATCH_BYTES, type DispatchStats } from './dispatch-stats';
import { leaseRows, type Lease } from './lease-row';
import { releaseHeldRows } from './release-held-rows';
import { batchBytesOf, outboxCollection, type EmailKind } from './outbox-row';
import { formBatch, recoverBatch, sealedUnit, singleUnit, type SendUnit } from './unit-lease';

/** The dispatcher needs exactly what delivering one unit needs. */
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
 * Units leased but not yet finished. Leasing the next chunk while earlier ones wait for the
 * limiter keeps the provider busy; leasing much further ahead would only hold leases (and
 * payloads in memory) for rows that cannot be sent yet.
 */
const UNITS_AHEAD = 4;
/** Without batching, rows are still leased this many per round trip and sent one by one. */
const SINGLE_LEASE_CHUNK = 20;

/**
 * dispatch outbox: lease → activity check → send → record.
 * First the held rows whose time has come become pending; then the rows whose sender died (`sending`, lease expired) are resolved per their kind's
 * semantics; then pending rows are leased a batch at a time (up to 100 per provider request) and
 * each batch is sent while the next one is leased, until the rows or the time budget run out,
 * or the provider refuses a send for quota (then nothing more is leased, and what was leased is
 * handed back untried).
 */
export async function dispatchOutbox(
  deps: DispatchDeps,
  input: { runId: string; maxAttempts: number; batchSize: number; shard?: Shard; pendingPageSize?: number },
): Promise<DispatchStats> {
  const stats = emptyDispatchStats();
  const kinds = new Map<string, EmailKind>();
  // Given up before any send (the provider's key window passed): counted and logged like a failed send.
  const gaveUp = (emailKey: string, reason: string) => {
    stats.failed += 1;
    deps.log('email.failed', {
      runId: input.runId,
      email: shortHash(emailKey, 12),
      kind: kinds.get(emailKey),
      status: 'failed',
      error: reason,
    });
  };
  const inFlight = new Set<Promise<void>>();
  const errors: unknown[] = [];
  const launch = (unit: SendUnit) => {
    const tracked: Promise<void> = deliverUnit(deps, unit, input)
      .then(({ results, retries }) => {
        stats.retried += retries;
        if (unit.batch) stats.batches += 1;
        for (const [emailKey, result] of results) countResult(stats, result, kinds.get(emailKey) ?? 'alert');
      })
      .catch((error: unknown) => void errors.push(error))
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  // Each listing is one query that cannot be cut short once started (on the emulator a scan of the
  // whole outbox): a run whose budget is spent does not start one, and says it left rows unlisted.
  const outOfTimeToList = () => {
    if (!deps.outOfTime()) return false;
    stats.unlisted = true;
    return true;
  };
  try {
    if (outOfTimeToList()) return stats;
    stats.heldDue = await releaseHeldRows(deps.db, { now: deps.clock() });
    // Only the fields needed to plan are fetched here; whole rows (with their payloads) are read
    // a chunk at a time when they are leased, so memory does not grow with the backlog.
    const abandoned = await outboxCollection(deps.db)
      .where('status', '==', 'sending')
      .where('leaseUntil', '<=', deps.clock())
      .select('uid', 'kind', 'batchKey', 'batchMembers')
      .limit(ABANDONED_PER_RUN)
      .get();
    const recovering = new Map<string, string[]>();
    const lone: Row[] = [];
    for (const doc of abandoned.docs) {
      kinds.set(doc.id, doc.get('kind') as EmailKind);
      const batchKey = (doc.get('batchKey') as string | null | undefined) ?? null;
      const batchMembers = (doc.get('batchMembers') as string[] | null | undefined) ?? null;
      if (batchKey && batchMembers) recovering.set(batchKey, batchMembers);
      else lone.push({ emailKey: doc.id, uid: doc.get('uid') as string });
    }
    for (const [batchKey, memberKeys] of recovering) {
      // Over quota, a recovered batch would only be handed back: it waits, `sending`, for a run that can send.
      if (deps.quota.hit()) break;
      const recovered = await recoverBatch(deps.db, { batchKey, memberKeys, runId: input.runId, now: deps.clock(), leaseMs: LEASE_MS });
      for (const emailKey of recovered.failed) gaveUp(emailKey, 'unknown_outcome');
      for (const emailKey of recovered.sent) countResult(stats, 'sent', kinds.get(emailKey) ?? 'alert');
      stats.deferred += recovered.released;
      if (recovered.unit) launch(recovered.unit);
    }

    const batchSize = Math.min(input.batchSize, MAX_BATCH_EMAILS);
    const plan = async (chunks: { rows: Row[]; seal: boolean }[]): Promise<'done' | 'stopped'> => {
      for (const [i, chunk] of chunks.entries()) {
        while (inFlight.size >= UNITS_AHEAD) await Promise.race(inFlight);
        if (errors.length > 0) return 'stopped';
        if (deps.outOfTime() || deps.quota.hit()) {
          stats.deferred += chunks.slice(i).reduce((n, c) => n + c.rows.length, 0);
          return 'stopped';
        }
        for (const unit of await leaseUnits(deps, stats, { ...chunk, runId: input.runId, batchSize, gaveUp })) launch(unit);
      }
      return 'done';
    };
    // A row picked up after its sender died goes alone: its earlier attempt used its own key.
    const lonePlan = await plan(chunked(lone, SINGLE_LEASE_CHUNK).map((rows) => ({ rows, seal: false })));

    // createdAt is selected because the cursor resumes from it (a snapshot without the ordered field cannot).
    const pendingQuery = outboxCollection(deps.db).where('status', '==', 'pending').orderBy('createdAt').select('uid', 'kind', 'createdAt');
    const pageSize = input.pendingPageSize ?? PENDING_PAGE;
    // The query walks on from the last row it listed: rows leased meanwhile left the range, a row
    // released back to `pending` during this run (a refused batch) waits for the next run, and a
    // shard steps past other shards' rows instead of listing them again.
    let cursor: QueryDocumentSnapshot | undefined;
    // A run stopped by its budget leaves the rest pending (counted as deferred, so the run is partial).
    for (let more = lonePlan === 'done'; more;) {
      if (outOfTimeToList()) break;
      const page = await (cursor ? pendingQuery.startAfter(cursor) : pendingQuery).limit(pageSize).get();
      cursor = page.docs[page.docs.length - 1];
      const rows = page.docs
        .map((d) => ({ emailKey: d.id, uid: d.get('uid') as string }))
        .filter((row) => ownsSubscriber(input.shard, row.uid));
      for (const doc of page.docs) kinds.set(doc.id, doc.get('kind') as EmailKind);
      const chunkSize = batchSize > 1 ? batchSize : SINGLE_LEASE_CHUNK;
      const planned = await plan(chunked(rows, chunkSize).map((c) => ({ rows: c, seal: batchSize > 1 })));
      more = planned === 'done' && page.size === pageSize;
    }
  } finally {
    // Units already started finish (or are fenced) before the run records itself, even on a throw.
    await Promise.all(inFlight);
  }
  if (errors.length > 0) throw errors[0];
  stats.quota = deps.quota.hit();
  return stats;
}

type Row = { emailKey: string; uid: string };

/** Leases one chunk and turns it into send units: the sealed batch, and any rows that must go alone or be batched after a fallback. */
async function leaseUnits(
  deps: DispatchDeps,
  stats: DispatchStats,
  input: { rows: Row[]; seal: boolean; runId: string; batchSize: number; gaveUp: (emailKey: string, reason: string) => void },
): Promise<SendUnit[]> {
  const leases: Lease[] = [];
  const leased = await leaseRows(deps.db, {
    rows: input.rows,
    chunkSize: input.rows.length,
    seal: input.seal ? { maxBytes: MAX_BATCH_BYTES } : undefined,
    runId: input.runId,
    now: deps.clock(),
    leaseMs: LEASE_MS,
  });
  leased.forEach((result, i) => {
    if (result.kind === 'skipped') stats.skipped += 1;
    if (result.kind === 'failed') input.gaveUp(input.rows[i].emailKey, result.reason);
    if (result.kind === 'leased') leases.push(result.lease);
  });
  const units: SendUnit[] = [];
  const sealed = leases.filter((l) => l.row.batchKey !== null);
  if (sealed.length > 0) units.push(sealedUnit(sealed));
  const loose = leases.filter((l) => l.row.batchKey === null);
  const fresh = input.seal ? loose.filter((l) => l.row.firstAttemptAt === null) : [];
  units.push(...loose.filter((l) => !fresh.includes(l)).map(singleUnit));
  for (const chunk of chunkForBatches(fresh, input.batchSize)) {
    if (chunk.length === 1) {
      units.push(singleUnit(chunk[0]));
      continue;
    }
    const unit = await formBatch(deps.db, chunk);
    if (unit) units.push(unit);
    else stats.fenced += chunk.length;
  }
  return units;
}

function chunked<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

function chunkForBatches(leases: Lease[], batchSize: number): Lease[][] {
  const chunks: Lease[][] = [];
  let current: Lease[] = [];
  let bytes = 0;
  for (const lease of leases) {
    const size = batchBytesOf(lease.row);
    if (current.length > 0 && (current.length === batchSize || bytes + size > MAX_BATCH_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(lease);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
