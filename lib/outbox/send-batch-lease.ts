import type { Firestore } from 'firebase-admin/firestore';
import { addHeldWrite, addTake, commitFenced, fenceAt, type Fence } from '../store/lease';
import { closeRow, closeRows, type Lease } from './lease-row';
import { batchKeyFor, outboxCollection, type OutboxRow } from './outbox-row';
import { abandonedStep, keyAgeMs } from './send-rules';

/** The fence of a holder's next write to a row: the version its lease or last write gave it (lib/store/lease.ts). */
export type Guard = Fence;

/**
 * One outbox row inside a send. `active` members are ours to record; an inactive member already
 * finished elsewhere and rides along only so a retried batch is byte-identical to the first try.
 */
export type Member = { emailKey: string; row: OutboxRow; guard: Guard; attempts: number; active: boolean };

/** What goes to the provider in one request: one row under its email key, or a batch under the batch key. */
export type SendBatch = { key: string; batch: boolean; members: Member[] };

export function singleSendBatch(lease: Lease): SendBatch {
  return {
    key: lease.emailKey,
    batch: false,
    members: [{ emailKey: lease.emailKey, row: lease.row, guard: fenceAt(lease.updateTime), attempts: lease.attempts, active: true }],
  };
}

/** Rows whose lease already packed them into one send batch (leaseRows with `pack`), in the batch's member order. */
export function packedSendBatch(leases: Lease[]): SendBatch {
  const { batchKey, batchMembers } = leases[0].row;
  if (!batchKey || !batchMembers || leases.some((l) => l.row.batchKey !== batchKey) || leases.length !== batchMembers.length)
    throw new Error('packedSendBatch needs every member of one packed send batch');
  const byKey = new Map(leases.map((l) => [l.emailKey, l]));
  return {
    key: batchKey,
    batch: true,
    members: batchMembers.map((emailKey) => {
      const lease = byKey.get(emailKey)!;
      return { emailKey, row: lease.row, guard: fenceAt(lease.updateTime), attempts: lease.attempts, active: true };
    }),
  };
}

/**
 * Packs leased rows into one send batch: every member records the batch key and the ordered
 * member list, fenced by its lease, before the batch is sent. A run that later finds a member
 * abandoned can rebuild the very same request from that list and resend it under the same key.
 */
export async function formBatch(db: Firestore, leases: Lease[]): Promise<SendBatch | null> {
  const ordered = [...leases].sort((a, b) => a.emailKey.localeCompare(b.emailKey));
  const memberKeys = ordered.map((l) => l.emailKey);
  const key = batchKeyFor(memberKeys);
  const batch = db.batch();
  for (const lease of ordered) {
    addHeldWrite(batch, outboxCollection(db).doc(lease.emailKey), lease.updateTime, { batchKey: key, batchMembers: memberKeys });
  }
  const versions = await commitFenced(batch);
  // Someone took one of the rows from under us: leave them all to expire and be recovered.
  if (!versions) return null;
  return {
    key,
    batch: true,
    members: ordered.map((lease, i) => ({
      emailKey: lease.emailKey,
      row: { ...lease.row, batchKey: key, batchMembers: memberKeys },
      guard: fenceAt(versions[i]),
      attempts: lease.attempts,
      active: true,
    })),
  };
}

/**
 * `failed`: the email keys given up (unknown_outcome), so the dispatcher can count and log each;
 * `sent`: those recorded sent because another member of their batch was.
 */
export type RecoveredBatch = { sendBatch: SendBatch | null; failed: string[]; released: number; sent: string[] };

/**
 * A batch whose sender died: inside the provider's key window it is resent whole, byte for byte,
 * under its key, so members that did go out are not sent twice. Past the window the key no longer
 * protects anything: alerts are given up as failed (unknown_outcome), digests go back to `pending`
 * to be sent on their own (at-least-once).
 */
export async function recoverBatch(
  db: Firestore,
  input: { batchKey: string; memberKeys: string[]; runId: string; now: Date; leaseMs: number },
): Promise<RecoveredBatch> {
  const refs = input.memberKeys.map((k) => outboxCollection(db).doc(k));
  const snaps = await db.getAll(...refs);
  const rows = snaps.map((s) => (s.exists ? (s.data() as OutboxRow) : undefined));
  const ours = (row: OutboxRow | undefined) => row?.status === 'sending' && row.batchKey === input.batchKey;
  if (rows.some((row) => ours(row) && row!.leaseUntil !== null && row!.leaseUntil > input.now))
    return { sendBatch: null, failed: [], released: 0, sent: [] };
  const stale = rows.map((row, i) => (ours(row) ? i : -1)).filter((i) => i >= 0);
  if (stale.length === 0) return { sendBatch: null, failed: [], released: 0, sent: [] };

  // A member recorded sent proves the request was accepted, and the batch endpoint (strict
  // validation) accepts a request whole: its other members went out too. They are recorded so,
  // with nothing sent again (the sent member no longer keeps its payload to rebuild it with).
  if (rows.some((row) => row?.status === 'sent' && row.batchKey === input.batchKey)) {
    const closed = await closeRows(
      db,
      stale.map((i) => ({
        emailKey: input.memberKeys[i],
        row: rows[i]!,
        guard: fenceAt(snaps[i].updateTime!),
        rowStatus: 'sent' as const,
        reason: null,
        now: input.now,
      })),
    );
    return { sendBatch: null, failed: [], released: 0, sent: stale.filter((_, j) => closed[j]).map((i) => input.memberKeys[i]) };
  }

  // The batch went out (if at all) under one key, first handed over with its oldest member.
  const keyAge = Math.max(...stale.map((i) => keyAgeMs(rows[i]!, input.now)));
  // A missing member, or one whose payload is gone, means the very same request can no longer be rebuilt.
  const sameRequest = rows.every((row) => row?.payload);
  const steps = new Map(stale.map((i) => [i, abandonedStep({ kind: rows[i]!.kind, keyAgeMs: keyAge, sameRequest })]));
  if (![...steps.values()].every((s) => s.step === 'resend-under-key')) {
    const failed: string[] = [];
    let released = 0;
    const batch = db.batch();
    for (const [i, step] of steps) {
      const row = rows[i]!;
      const guard = fenceAt(snaps[i].updateTime!);
      if (step.step === 'give-up') {
        const closed = await closeRow(db, {
          emailKey: input.memberKeys[i],
          row,
          guard,
          rowStatus: 'failed',
          reason: step.reason,
          now: input.now,
        });
        if (closed) failed.push(input.memberKeys[i]);
      } else {
        addHeldWrite(batch, refs[i], snaps[i].updateTime!, {
          status: 'pending',
          batchKey: null,
          batchMembers: null,
          leaseUntil: null,
          leaseOwner: null,
        });
        released += 1;
      }
    }
    await commitFenced(batch);
    return { sendBatch: null, failed, released, sent: [] };
  }

  const lease = db.batch();
  const leaseUntil = new Date(input.now.getTime() + input.leaseMs);
  // Taken over: each stale member, fenced by the version read (the take of the store's lease).
  for (const i of stale) addTake(lease, snaps[i], { leaseOwner: input.runId, leaseUntil, attempts: rows[i]!.attempts + 1 });
  const versions = await commitFenced(lease);
  if (!versions) return { sendBatch: null, failed: [], released: 0, sent: [] };
  let next = 0;
  const members = rows.map((row, i) => {
    const active = stale.includes(i);
    const guard = fenceAt(active ? versions[next++] : snaps[i].updateTime!);
    return { emailKey: input.memberKeys[i], row: row!, guard, attempts: active ? row!.attempts + 1 : row!.attempts, active };
  });
  return { sendBatch: { key: input.batchKey, batch: true, members }, failed: [], released: 0, sent: [] };
}

/** Refreshes the lease of every active member before another attempt; false when any was taken over. */
export async function extendLease(
  db: Firestore,
  sendBatch: SendBatch,
  input: { leaseUntil: Date; lastError: string; countsAttempt?: boolean },
): Promise<boolean> {
  const counts = input.countsAttempt ?? true;
  const batch = db.batch();
  const active = sendBatch.members.filter((m) => m.active);
  for (const m of active) {
    batch.update(
      outboxCollection(db).doc(m.emailKey),
      { ...(counts ? { attempts: m.attempts + 1 } : {}), lastError: input.lastError, leaseUntil: input.leaseUntil },
      m.guard,
    );
  }
  const versions = await commitFenced(batch);
  if (!versions) return false;
  active.forEach((m, i) => {
    m.guard = fenceAt(versions[i]);
    if (counts) m.attempts += 1;
  });
  return true;
}

/**
 * Hands the send batch's rows to a later run. A definite refusal goes back to `pending` (never sent);
 * an unknown outcome stays `sending` with an expired lease, so the next run re-checks it under the
 * key-window rule. A batch the provider refused as a whole is dissolved: its rows go out alone.
 */
export async function releaseSendBatch(
  db: Firestore,
  sendBatch: SendBatch,
  input: { neverSent: boolean; dissolve: boolean; lastError: string; now: Date; asNew?: boolean },
): Promise<boolean> {
  const batch = db.batch();
  for (const m of sendBatch.members.filter((member) => member.active)) {
    batch.update(
      outboxCollection(db).doc(m.emailKey),
      {
        status: input.neverSent ? 'pending' : 'sending',
        leaseUntil: input.neverSent ? null : input.now,
        lastError: input.lastError,
        attempts: m.attempts,
        ...(input.dissolve ? { batchKey: null, batchMembers: null } : {}),
        ...(input.asNew ? { firstAttemptAt: null } : {}),
      },
      m.guard,
    );
  }
  return (await commitFenced(batch)) !== null;
}

/**
 * Hands the send batch back after the provider refused it for quota (or after the run stopped sending
 * because of one), without counting the attempt: the quota says nothing about the email.
 * - Never possibly handed over before (no earlier attempt, no unknown outcome): back to `pending`
 *   exactly as it was before the lease, `firstAttemptAt` cleared and any batch dissolved, so it
 *   is batched afresh next time (nothing was sent under the old batch key).
 * - Already tried before, only ever refused: back to `pending`, keeping what it had.
 * - Possibly handed over before (its holder died, or an outcome in this run was unknown): left
 *   `sending` with an expired lease, so the next run applies the key-window rule, as it would have.
 * `lastError` null leaves the row's last error as it was (a send that never left this run).
 */
export async function holdSendBatch(
  db: Firestore,
  sendBatch: SendBatch,
  input: { handedOver: boolean; lastError: string | null; now: Date },
): Promise<boolean> {
  const batch = db.batch();
  for (const m of sendBatch.members.filter((member) => member.active)) {
    const common = { attempts: m.attempts - 1, ...(input.lastError === null ? {} : { lastError: input.lastError }) };
    const fields = input.handedOver
      ? { ...common, status: 'sending', leaseUntil: input.now }
      : m.row.firstAttemptAt === null
        ? { ...common, status: 'pending', leaseOwner: null, leaseUntil: null, firstAttemptAt: null, batchKey: null, batchMembers: null }
        : { ...common, status: 'pending', leaseOwner: null, leaseUntil: null };
    batch.update(outboxCollection(db).doc(m.emailKey), fields, m.guard);
  }
  return (await commitFenced(batch)) !== null;
}
