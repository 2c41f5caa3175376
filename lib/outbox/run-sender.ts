import { AsyncLocalStorage } from 'node:async_hooks';
import type { Firestore, Timestamp } from 'firebase-admin/firestore';
import type { SenderTiming } from '../ledger/runs';
import { readMany } from '../store/create-documents';
import { isLostPrecondition } from '../store/firestore-errors';
import { MAX_COMMIT_BYTES, payloadBytes } from '../store/atomic-writes';
import { MAX_BATCH_WRITES } from '../store/create-documents';
import { MAX_BATCH_EMAILS } from '../mail/mailer';
import { subscribersCollection } from '../subscribers/subscriber';
import { deliverSendBatch, LEASE_MS, type DeliverDeps } from './deliver-send-batch';
import { countResult, emptyDispatchStats, MAX_BATCH_BYTES, type DispatchStats } from './dispatch-stats';
import { closeWrites, type Lease } from './lease-row';
import { batchBytesOf, batchKeyFor, MAY_RECEIVE, outboxCollection, payloadOf, type OutboxRow } from './outbox-row';
import { settleDigestItems } from './settle-digest-items';
import { holdSendBatch, packedSendBatch, singleSendBatch, type SendBatch } from './send-batch-lease';
import { fenceAt } from '../store/lease';

/**
 * The run's sender for the rows it creates itself: the claim's alerts and the flush's digests.
 *
 * A row that the dispatcher would lease a moment later is created already leased by this run and
 * already packed into the send batch it will go out in (the same fields a lease and a packing
 * write: `sending`, owner, lease, first attempt, batch key and members), and handed over in
 * memory with the version its create() gave it. Sending it then costs one read (its subscriber,
 * re-read right before the send: opt-outs win) and one write (the record), where a row found by
 * the pending query costs three reads (the listing, the row, the subscriber) and two writes (the
 * lease, the record).
 *
 * Nothing about the ledger's guarantees changes. The row exists, leased, before any send. Its
 * lease is fenced by version like any other: a run that takes the row over after the lease expires
 * changes the version, and every later write of ours is refused. A crash leaves the row `sending`
 * with an expired lease and a first attempt stamped at its creation (a send may have started), so
 * the next run's recovery resends it, or its whole batch, byte for byte under the same key inside
 * the provider's key window (send-rules.ts) — which is why `firstAttemptAt` is set at creation:
 * the window is counted from the earliest moment the key could have reached the provider.
 *
 * Send batches are sent as they are offered, a few in flight, and `offer` waits while too many are
 * queued: payloads are held in memory only for the send batches on their way, however many the run creates.
 */
export type RunSender = {
  /** Packs rows about to be created into the provider batches they will go out in, each to be written as `stored` gives it. */
  pack<T extends HandedRow>(rows: T[]): PackedSendBatch<T>[];
  /**
   * Sends send batches whose create() landed at `writtenAt` (the commit time: the version of each row).
   * Resolves when there is room for more; throws the error that stopped the sender, if one did.
   */
  offer(sendBatches: { sendBatch: PackedSendBatch<HandedRow>; writtenAt: Timestamp }[], from: 'claim' | 'flush'): Promise<void>;
  /** Waits for every send batch offered; the sender's stats. Throws the first error a send met. */
  drain(): Promise<DispatchStats>;
  /** Waits for the sends in flight, whatever happened (a run that throws still finishes them before it records itself). */
  settle(): Promise<void>;
  /** How long it sent, and how long the claim and the flush waited for it (the run record's `sender`). */
  timing(): SenderTiming;
};

/**
 * The async context the sender works in. Nothing in the app reads it: it lets a caller that counts
 * store operations (the bench) tell the sender's from the claim's and the flush's it runs alongside.
 */
export const senderLane = new AsyncLocalStorage<string>();

/** A row about to be created, as newOutboxRow made it (pending), with the writes its atomic write takes. */
export type HandedRow = { emailKey: string; row: OutboxRow; writes: number };

export type PackedSendBatch<T extends HandedRow> = {
  /** The batch key, or null for a send batch of one (sent alone under its own key). */
  key: string | null;
  members: T[];
  /** What packing adds to the send batch's commit: every member carries the list of all members. */
  packBytes: number;
  /**
   * The send batch ended because the rows ran out, not because it reached a limit (emails, bytes,
   * writes): a caller with more rows coming can hold its members back and pack them with those, so each
   * provider request carries as many emails as it may.
   */
  open: boolean;
  /** The row as the create() writes it: leased to this run and packed. */
  stored(member: T): OutboxRow;
};

/** Send batches in flight at once, and queued at most (in flight included) before `offer` waits. */
const IN_FLIGHT = 4;
const QUEUED = 8;
/** A send batch whose lease has less than this left is renewed before its send (rare: only after a long wait). */
const RENEW_BELOW_MS = LEASE_MS / 2;

type Job = { sendBatch: PackedSendBatch<HandedRow>; writtenAt: Timestamp };

export function createRunSender(
  deps: DeliverDeps,
  input: {
    runId: string;
    maxAttempts: number;
    batchSize: number;
    /** senderLane's name for this run's sends: its shard, or `run`. */ lane: string;
  },
): RunSender {
  const stats = emptyDispatchStats();
  const batchSize = Math.min(input.batchSize, MAX_BATCH_EMAILS);
  const queue: Job[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  const timing: SenderTiming = { sendBatches: 0, busyMs: 0, waitedMs: { claim: 0, flush: 0, drain: 0 } };
  const wall = () => performance.now();
  const waiting = { claim: 0, flush: 0 };
  const waitingSince = { claim: 0, flush: 0 };
  let busySince: number | null = null;
  // Read through a function: a send that fails sets it while `offer` awaits.
  const failed = () => failure;

  const pump = () => {
    while (!failure && inFlight.size < IN_FLIGHT && queue.length > 0) {
      const job = queue.shift()!;
      busySince ??= wall();
      const tracked: Promise<void> = senderLane
        .run(input.lane, () => sendPackedBatch(deps, stats, job, input))
        .catch((error: unknown) => void (failure ??= { error }))
        .finally(() => {
          inFlight.delete(tracked);
          pump();
          if (inFlight.size === 0 && busySince !== null) {
            timing.busyMs += wall() - busySince;
            busySince = null;
          }
        });
      inFlight.add(tracked);
    }
  };
  const settle = async () => {
    while (inFlight.size > 0) await Promise.race(inFlight);
  };

  return {
    pack(rows) {
      return packSendBatches(rows, { batchSize, runId: input.runId, now: deps.clock() });
    },
    async offer(sendBatches, from) {
      if (failed()) throw failed()!.error;
      queue.push(...sendBatches);
      timing.sendBatches += sendBatches.length;
      pump();
      if (!failed() && queue.length + inFlight.size > QUEUED) {
        // Subscriber batches offer at once: the time counted is while any of them waited, not the sum of their waits.
        if (waiting[from]++ === 0) waitingSince[from] = wall();
        try {
          while (!failed() && queue.length + inFlight.size > QUEUED) await Promise.race(inFlight);
        } finally {
          if (--waiting[from] === 0) timing.waitedMs[from] += wall() - waitingSince[from];
        }
      }
      if (failed()) throw failed()!.error;
    },
    async drain() {
      // A sender that failed starts nothing more: what is still queued stays leased, for recovery.
      const waitFrom = wall();
      await settle();
      timing.waitedMs.drain += wall() - waitFrom;
      if (failed()) throw failed()!.error;
      stats.quota = deps.quota.hit();
      return stats;
    },
    settle,
    timing: () => ({
      sendBatches: timing.sendBatches,
      busyMs: Math.round(timing.busyMs),
      waitedMs: {
        claim: Math.round(timing.waitedMs.claim),
        flush: Math.round(timing.waitedMs.flush),
        drain: Math.round(timing.waitedMs.drain),
      },
    }),
  };
}

/**
 * Consecutive rows, in key order, up to a provider batch (batchSize emails, MAX_BATCH_BYTES) and
 * to one commit (MAX_BATCH_WRITES writes, MAX_COMMIT_BYTES): a send batch is created all or
 * nothing, so its packing is whole — every member it lists exists, leased to this run — or none of it exists.
 */
export function packSendBatches<T extends HandedRow>(
  rows: T[],
  input: { batchSize: number; runId: string; now: Date; leaseMs?: number },
): PackedSendBatch<T>[] {
  const ordered = [...rows].sort((a, b) => a.emailKey.localeCompare(b.emailKey));
  const packed: T[][] = [];
  let current: T[] = [];
  let emailBytes = 0;
  let commitBytes = 0;
  let keyBytes = 0;
  let writes = 0;
  for (const row of ordered) {
    const email = batchBytesOf(row.row);
    const commit = payloadBytes(payloadOf(row.row));
    const key = row.emailKey.length + 4;
    const full =
      current.length === input.batchSize ||
      emailBytes + email > MAX_BATCH_BYTES ||
      commitBytes + commit + packBytesOf(current.length + 1, keyBytes + key) > MAX_COMMIT_BYTES ||
      writes + row.writes > MAX_BATCH_WRITES;
    if (current.length > 0 && full) {
      packed.push(current);
      current = [];
      emailBytes = commitBytes = keyBytes = writes = 0;
    }
    current.push(row);
    emailBytes += email;
    commitBytes += commit;
    keyBytes += key;
    writes += row.writes;
  }
  if (current.length > 0) packed.push(current);
  // Every send batch but the last was closed by a limit; the last only if it reached the batch size.
  const lastOpen = packed.length > 0 && packed[packed.length - 1].length < input.batchSize;

  const leaseUntil = new Date(input.now.getTime() + (input.leaseMs ?? LEASE_MS));
  return packed.map((members, i) => {
    const memberKeys = members.map((m) => m.emailKey);
    const key = members.length > 1 ? batchKeyFor(memberKeys) : null;
    return {
      key,
      members,
      packBytes: key
        ? packBytesOf(
            members.length,
            memberKeys.reduce((n, k) => n + k.length + 4, 0),
          )
        : 0,
      open: lastOpen && i === packed.length - 1,
      stored: (member) => ({
        ...member.row,
        status: 'sending',
        leaseOwner: input.runId,
        leaseUntil,
        firstAttemptAt: input.now,
        attempts: 1,
        batchKey: key,
        batchMembers: key ? memberKeys : null,
      }),
    };
  });
}

/** n members each carrying the list of all n keys (keyBytes in all, with room for their encoding). */
const packBytesOf = (members: number, keyBytes: number) => (members > 1 ? members * keyBytes : 0);

/**
 * One send batch: the subscribers re-read (opt-outs win), the ones who may no longer receive set aside,
 * then the send and the record (deliverSendBatch, the dispatcher's own). A run out of time, or past a
 * quota, hands the send batch back as the dispatcher hands back what it leased and did not send.
 */
async function sendPackedBatch(deps: DeliverDeps, stats: DispatchStats, job: Job, input: { maxAttempts: number }): Promise<void> {
  const { sendBatch, writtenAt } = job;
  const memberKeys = sendBatch.members.map((m) => m.emailKey);
  // The row as the lease step would have handed it over: as it was before the lease, the packing merged in.
  let leases: Lease[] = sendBatch.members.map((m) => ({
    emailKey: m.emailKey,
    row: { ...m.row, batchKey: sendBatch.key, batchMembers: sendBatch.key ? memberKeys : null },
    updateTime: writtenAt,
    attempts: 1,
  }));
  if (deps.outOfTime() || deps.quota.hit()) {
    const held = await holdSendBatch(deps.db, sendBatchOf(leases), { handedOver: false, lastError: null, now: deps.clock() });
    if (held) stats.deferred += leases.length;
    else stats.fenced += leases.length;
    return;
  }

  const subscribers = await readMany(
    deps.db,
    leases.map((l) => subscribersCollection(deps.db).doc(l.row.uid)),
  );
  const refused = new Map<string, string>();
  leases.forEach((l, i) => {
    const status = subscribers[i].exists ? subscribers[i].data()!.status : undefined;
    if (!status || !MAY_RECEIVE[l.row.kind].includes(status)) refused.set(l.emailKey, `subscriber_${status ?? 'deleted'}`);
  });
  const stored = sendBatch.stored(sendBatch.members[0]);
  const renew = stored.leaseUntil!.getTime() - deps.clock().getTime() < RENEW_BELOW_MS;
  if (refused.size > 0 || renew) {
    const kept = await setAside(deps.db, leases, refused, deps.clock());
    if (kept === null) {
      stats.fenced += leases.length;
      return;
    }
    stats.skipped += refused.size;
    leases = kept;
  }
  if (leases.length === 0) return;

  const { results, retries } = await deliverSendBatch(deps, sendBatchOf(leases), input);
  stats.retried += retries;
  if (leases.length > 1) stats.batches += 1;
  for (const lease of leases) countResult(stats, results.get(lease.emailKey) ?? 'fenced', lease.row.kind);
}

const sendBatchOf = (leases: Lease[]): SendBatch => (leases.length > 1 ? packedSendBatch(leases) : singleSendBatch(leases[0]));

/**
 * In one fenced commit: the members whose subscriber may no longer receive are closed `skipped`,
 * and the rest are packed again without them (a batch's key names its members, and a refused
 * member must never ride along in a resent batch), their lease renewed. One commit, so no moment
 * exists where a recovery could rebuild the old batch with the refused member still in it. Null
 * when a fence held: someone took the rows over, and they are theirs now.
 */
async function setAside(db: Firestore, leases: Lease[], refused: Map<string, string>, now: Date): Promise<Lease[] | null> {
  const batch = db.batch();
  const kept = leases.filter((l) => !refused.has(l.emailKey));
  const keptKeys = kept.map((l) => l.emailKey);
  const key = kept.length > 1 ? batchKeyFor(keptKeys) : null;
  const leaseUntil = new Date(now.getTime() + LEASE_MS);
  for (const l of leases) {
    const guard = fenceAt(l.updateTime);
    const reason = refused.get(l.emailKey);
    if (reason) closeWrites(db, { emailKey: l.emailKey, row: l.row, guard, rowStatus: 'skipped', reason, now }).apply(batch);
    else batch.update(outboxCollection(db).doc(l.emailKey), { batchKey: key, batchMembers: key ? keptKeys : null, leaseUntil }, guard);
  }
  let written: FirebaseFirestore.WriteResult[];
  try {
    written = await batch.commit();
  } catch (error) {
    if (isLostPrecondition(error)) return null;
    throw error;
  }
  const skippedDigests = leases.filter((l) => refused.has(l.emailKey) && l.row.kind === 'digest' && l.row.deliveryIds.length > 0);
  if (skippedDigests.length > 0)
    await settleDigestItems(
      db,
      skippedDigests.map((l) => ({
        emailKey: l.emailKey,
        row: { status: 'skipped', sentAt: null, lastError: refused.get(l.emailKey)! },
        deliveryIds: l.row.deliveryIds,
      })),
    );
  const at = written[0].writeTime;
  return kept.map((l) => ({ ...l, row: { ...l.row, batchKey: key, batchMembers: key ? keptKeys : null }, updateTime: at }));
}
