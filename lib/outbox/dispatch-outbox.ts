import { MAX_BATCH_EMAILS } from '../mail/mailer';
import { deliverUnit, LEASE_MS, type DeliverDeps, type MemberResult } from './deliver-unit';
import { leaseRows, type Lease } from './lease-row';
import { outboxCollection, type EmailKind } from './outbox-row';
import { formBatch, recoverBatch, singleUnit, type SendUnit } from './send-unit';

/** The dispatcher needs exactly what delivering one unit needs. */
export type DispatchDeps = DeliverDeps;

export type DispatchStats = {
  sent: Record<EmailKind, number>;
  skipped: number;
  failed: number;
  dead: number;
  retried: number;
  deferred: number;
  fenced: number;
  /** Provider requests that carried more than one email. */
  batches: number;
};

/** Rows considered per run; the time budget, not this, is what normally ends a long dispatch. */
const ROWS_PER_RUN = 20_000;
/** Keeps one batch request well under provider body limits even for long digests. */
const MAX_BATCH_BYTES = 3_000_000;

/**
 * dispatch outbox: lease → activity check → send → record.
 * First the rows whose sender died (`sending`, lease expired) are resolved per their kind's
 * semantics; then pending rows are leased and sent, up to 100 per provider request.
 */
export async function dispatchOutbox(
  deps: DispatchDeps,
  input: { runId: string; maxAttempts: number; batchSize: number },
): Promise<DispatchStats> {
  const stats: DispatchStats = {
    sent: { alert: 0, digest: 0, confirm: 0, manage: 0 },
    skipped: 0,
    failed: 0,
    dead: 0,
    retried: 0,
    deferred: 0,
    fenced: 0,
    batches: 0,
  };
  const kinds = new Map<string, EmailKind>();
  const units: SendUnit[] = [];
  const now = deps.clock();

  // Only the fields needed to plan are fetched here; whole rows (with their payloads) are read in
  // chunks when they are leased, so memory does not grow with the size of the backlog.
  const abandoned = await outboxCollection(deps.db)
    .where('status', '==', 'sending')
    .where('leaseUntil', '<=', now)
    .select('uid', 'kind', 'batchKey', 'batchMembers')
    .limit(ROWS_PER_RUN)
    .get();
  const recovering = new Map<string, string[]>();
  const lone: { emailKey: string; uid: string }[] = [];
  for (const doc of abandoned.docs) {
    kinds.set(doc.id, doc.get('kind'));
    const batchKey: string | null = doc.get('batchKey') ?? null;
    const batchMembers: string[] | null = doc.get('batchMembers') ?? null;
    if (batchKey && batchMembers) recovering.set(batchKey, batchMembers);
    else lone.push({ emailKey: doc.id, uid: doc.get('uid') });
  }
  for (const [batchKey, memberKeys] of recovering) {
    const recovered = await recoverBatch(deps.db, { batchKey, memberKeys, runId: input.runId, now: deps.clock(), leaseMs: LEASE_MS });
    stats.failed += recovered.failed;
    stats.deferred += recovered.released;
    if (recovered.unit) units.push(recovered.unit);
  }

  const pending = await outboxCollection(deps.db)
    .where('status', '==', 'pending')
    .orderBy('createdAt')
    .select('uid', 'kind')
    .limit(ROWS_PER_RUN)
    .get();
  for (const doc of pending.docs) kinds.set(doc.id, doc.get('kind'));
  const candidates = [...lone, ...pending.docs.map((d) => ({ emailKey: d.id, uid: d.get('uid') as string }))];
  const leases: Lease[] = [];
  if (deps.outOfTime()) {
    stats.deferred += candidates.length;
  } else {
    for (const leased of await leaseRows(deps.db, { rows: candidates, runId: input.runId, now: deps.clock(), leaseMs: LEASE_MS })) {
      if (leased.kind === 'skipped') stats.skipped += 1;
      if (leased.kind === 'failed') stats.failed += 1;
      if (leased.kind === 'leased') leases.push(leased.lease);
    }
  }

  // A row picked up after its sender died goes alone: its earlier attempt used its own key.
  const fresh = leases.filter((l) => l.row.firstAttemptAt === null);
  const retried = leases.filter((l) => l.row.firstAttemptAt !== null);
  units.push(...retried.map(singleUnit));
  for (const chunk of chunkForBatches(fresh, Math.min(input.batchSize, MAX_BATCH_EMAILS))) {
    if (chunk.length === 1) {
      units.push(singleUnit(chunk[0]));
      continue;
    }
    const unit = await formBatch(deps.db, chunk);
    if (unit) units.push(unit);
    else stats.fenced += chunk.length;
  }

  await Promise.all(
    units.map(async (unit) => {
      const { results, retries } = await deliverUnit(deps, unit, input);
      stats.retried += retries;
      if (unit.batch) stats.batches += 1;
      for (const [emailKey, result] of results) count(stats, result, kinds.get(emailKey) ?? 'alert');
    }),
  );
  return stats;
}

function count(stats: DispatchStats, result: MemberResult, kind: EmailKind) {
  if (result === 'sent') stats.sent[kind] += 1;
  else if (result === 'released') stats.deferred += 1;
  else stats[result] += 1;
}

function chunkForBatches(leases: Lease[], batchSize: number): Lease[][] {
  const chunks: Lease[][] = [];
  let current: Lease[] = [];
  let bytes = 0;
  for (const lease of leases) {
    const size = lease.row.payload.html.length + lease.row.payload.text.length + 1_000;
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
