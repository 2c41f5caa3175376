import { FieldValue, type DocumentSnapshot, type Firestore, type Timestamp } from 'firebase-admin/firestore';
import { noFailpoints, type Failpoint } from '../runtime/failpoints';
import { readMany } from '../store/create-documents';
import { isLostPrecondition } from '../store/firestore-errors';
import { addTake, commitFenced, fenceAt, takeLease, type Fence } from '../store/lease';
import { settleDigestItems } from './settle-digest-items';
import { commitAtomicWrites, type AtomicWrite } from '../store/atomic-writes';
import { subscribersCollection, type Subscriber } from '../subscribers/subscriber';
import { batchBytesOf, batchKeyFor, outboxCollection, packPayload, type OutboxRow } from './outbox-row';
import { leaseStep } from './send-rules';

export type Lease = { emailKey: string; row: OutboxRow; updateTime: Timestamp; attempts: number };

export type LeaseResult =
  | { kind: 'leased'; lease: Lease }
  | { kind: 'not-ours' } // finished, or someone else holds a live lease, or took it first
  | { kind: 'skipped'; reason: string }
  | { kind: 'failed'; reason: string };

type LeaseInput = { runId: string; now: Date; leaseMs: number };
const leaseFields = (row: OutboxRow, input: LeaseInput) => ({
  status: 'sending',
  leaseOwner: input.runId,
  leaseUntil: new Date(input.now.getTime() + input.leaseMs),
  firstAttemptAt: row.firstAttemptAt ?? input.now,
  attempts: row.attempts + 1,
});

/**
 * Takes one outbox row for sending. The row and its subscriber are read together, and the write
 * that takes the lease is fenced by the row's version read (the store's lease, lib/store/lease.ts):
 * if anyone changed it since we read, our lease is refused and we walk away. The subscriber's
 * status is checked in the same step, so an opt-out that lands before the lease is honoured.
 */
export async function leaseRow(db: Firestore, input: LeaseInput & { emailKey: string; uid: string }): Promise<LeaseResult> {
  const rowRef = outboxCollection(db).doc(input.emailKey);
  const [rowSnap, subscriberSnap] = await db.getAll(rowRef, subscribersCollection(db).doc(input.uid));
  return applyDecision(db, input, rowSnap as DocumentSnapshot<OutboxRow>, subscriberSnap as DocumentSnapshot<Subscriber>);
}

async function applyDecision(
  db: Firestore,
  input: LeaseInput,
  rowSnap: DocumentSnapshot<OutboxRow>,
  subscriberSnap: DocumentSnapshot<Subscriber>,
): Promise<LeaseResult> {
  const row = rowSnap.exists ? rowSnap.data() : undefined;
  const step = leaseStep({ row, subscriber: subscriberSnap.exists ? subscriberSnap.data() : undefined, now: input.now });
  if (step.step === 'not-ours' || !row) return { kind: 'not-ours' };
  if (step.step !== 'lease') {
    const as = step.step === 'skip' ? 'skipped' : 'failed';
    const guard = fenceAt(rowSnap.updateTime!);
    const closed = await closeRow(db, { emailKey: rowSnap.id, row, guard, rowStatus: as, reason: step.reason, now: input.now });
    return closed ? { kind: as, reason: step.reason } : { kind: 'not-ours' };
  }
  // The store's lease, on the version already read: a lost race walks away (someone else took it).
  const taken = await takeLease(rowSnap.ref, () => ({ take: leaseFields(row, input), as: null }), { read: rowSnap });
  if (!('taken' in taken)) return { kind: 'not-ours' };
  return { kind: 'leased', lease: { emailKey: rowSnap.id, row, updateTime: taken.taken, attempts: row.attempts + 1 } };
}

/** Rows leased per round trip pair (one getAll of rows and subscribers, one fenced batch). */
const LEASE_BATCH = 200;

/** Packing: the fresh rows leased together also become one send batch, in the same write. */
export type PackOptions = { maxBytes: number };

/**
 * Leases many rows in few round trips: rows and their subscribers in one getAll per lease batch, every
 * lease of the lease batch in one write batch of precondition-guarded updates. A batch is all or nothing, so
 * if another run took any row of the lease batch first, it falls back to one lease per row and
 * only the rows really taken elsewhere are lost. Rows to skip or fail are closed one by one (rare).
 *
 * With `pack`, the lease batch's never-attempted rows are also packed into one send batch by the
 * same write (batch key and ordered member list on each, see send-batch-lease.ts), saving a second
 * fenced write per row. A lease batch that falls back is leased unpacked; the caller forms its batch.
 */
export async function leaseRows(
  db: Firestore,
  input: LeaseInput & { rows: { emailKey: string; uid: string }[]; batchSize?: number; pack?: PackOptions },
): Promise<LeaseResult[]> {
  const results: LeaseResult[] = [];
  const batchSize = input.batchSize ?? LEASE_BATCH;
  for (let start = 0; start < input.rows.length; start += batchSize) {
    const leasing = input.rows.slice(start, start + batchSize);
    const rowSnaps = await readMany(
      db,
      leasing.map((r) => outboxCollection(db).doc(r.emailKey)),
    );
    const subscriberSnaps = await readMany(
      db,
      leasing.map((r) => subscribersCollection(db).doc(r.uid)),
    );
    const steps = leasing.map((_, i) =>
      leaseStep({
        row: rowSnaps[i].exists ? rowSnaps[i].data() : undefined,
        subscriber: subscriberSnaps[i].exists ? subscriberSnaps[i].data() : undefined,
        now: input.now,
      }),
    );
    const toLease = steps.map((s, i) => (s.step === 'lease' ? i : -1)).filter((i) => i >= 0);
    const packed = input.pack
      ? packable(
          toLease.map((i) => rowSnaps[i]),
          input.pack,
        )
      : null;
    const batch = db.batch();
    for (const i of toLease) {
      const row = rowSnaps[i].data()!;
      const packing = packed?.members.includes(rowSnaps[i].id) ? { batchKey: packed.key, batchMembers: packed.members } : {};
      addTake(batch, rowSnaps[i], { ...leaseFields(row, input), ...packing });
    }
    const writeTimes = toLease.length > 0 ? await commitFenced(batch) : [];
    const leaseResults = await Promise.all(
      leasing.map(async (_, i): Promise<LeaseResult> => {
        const step = steps[i];
        if (step.step === 'not-ours') return { kind: 'not-ours' };
        if (step.step === 'lease' && writeTimes) {
          const read = rowSnaps[i].data()!;
          const row = packed?.members.includes(rowSnaps[i].id) ? { ...read, batchKey: packed.key, batchMembers: packed.members } : read;
          return {
            kind: 'leased',
            lease: { emailKey: leasing[i].emailKey, row, updateTime: writeTimes[toLease.indexOf(i)], attempts: read.attempts + 1 },
          };
        }
        // A close, or a lease whose lease batch lost a race: settle this row on its own.
        return applyDecision(db, input, rowSnaps[i], subscriberSnaps[i]);
      }),
    );
    results.push(...leaseResults);
  }
  return results;
}

/** The rows that can go out as one batch: never attempted (a retried row keeps its own key), at least two, within the byte cap. */
function packable(snaps: DocumentSnapshot<OutboxRow>[], pack: PackOptions): { key: string; members: string[] } | null {
  const fresh = snaps.filter((s) => s.data()!.firstAttemptAt === null);
  if (fresh.length < 2) return null;
  if (fresh.reduce((n, s) => n + batchBytesOf(s.data()!), 0) > pack.maxBytes) return null;
  const members = fresh.map((s) => s.id).sort((a, b) => a.localeCompare(b));
  return { key: batchKeyFor(members), members };
}

export type CloseInput = {
  emailKey: string;
  row: OutboxRow;
  /** The version the closer holds (its lease's, or the one it read): the close is fenced by it. */
  guard: Fence;
  rowStatus: 'sent' | 'failed' | 'dead' | 'skipped';
  reason: string | null;
  now: Date;
  providerId?: string;
  attempts?: number;
};

/**
 * The write that moves a row to a final state, fenced by the version we hold. An alert's
 * deliveries are not touched: their outcome is the row's (lib/ledger/delivery-outcome.ts). A
 * digest's items are marked after it (closeRows).
 *
 * The same write drops what a final row no longer needs, most of its bytes: the member list of the
 * batch it went out in, and its payload, since nothing can send it again (a final row is never
 * leased, and a batch it went out in is settled from its `sent` members, send-batch-lease.ts
 * recoverBatch, not rebuilt). Payloads kept: a digest's, gzipped (an operator may resend the
 * latest digest; outbox-row.ts packPayload), and a dead row's as it is (an operator may retry it);
 * the TTL takes those with the row.
 */
export function closeWrites(db: Firestore, input: CloseInput): AtomicWrite {
  const sent = input.rowStatus === 'sent';
  const dropPayload = input.rowStatus !== 'dead' && input.row.kind !== 'digest';
  // A digest keeps its payload, gzipped (a dead row keeps it as it is, for a retry to send).
  const packPayloadNow = input.rowStatus !== 'dead' && input.row.kind === 'digest' && input.row.payload !== null;
  return {
    size: 1,
    apply(batch) {
      batch.update(
        outboxCollection(db).doc(input.emailKey),
        {
          status: input.rowStatus,
          leaseUntil: null,
          ...(sent ? { providerId: input.providerId ?? null, sentAt: input.now, lastError: null } : { lastError: input.reason }),
          ...(input.attempts !== undefined ? { attempts: input.attempts } : {}),
          ...(dropPayload ? { payload: FieldValue.delete() } : {}),
          ...(packPayloadNow ? { payload: FieldValue.delete(), payloadGzip: packPayload(input.row.payload!) } : {}),
          // A final row is never part of a rebuilt request: only its batch key is asked for (the
          // sent-member rule), and a batch of 100 makes the member list ~5 KB on every member.
          batchMembers: null,
        },
        input.guard,
      );
    },
  };
}

/**
 * Closes many rows in few commits; false for each row whose fence held us off (it moved on without
 * us). Then the items each closed digest listed take its outcome ("send, then mark them sent").
 */
export async function closeRows(db: Firestore, inputs: CloseInput[], failpoint: Failpoint = noFailpoints): Promise<boolean[]> {
  const closed = await commitAtomicWrites(
    db,
    inputs.map((input) => closeWrites(db, input)),
    isLostPrecondition,
  );
  const digests = inputs.filter((input, i) => closed[i] && input.row.kind === 'digest' && input.row.deliveryIds.length > 0);
  if (digests.length === 0) return closed;
  await failpoint('before-digest-marks', { emailKey: digests[0].emailKey });
  await settleDigestItems(
    db,
    digests.flatMap((input) => [
      {
        emailKey: input.emailKey,
        row: { status: input.rowStatus, sentAt: input.rowStatus === 'sent' ? input.now : null, lastError: input.reason },
        deliveryIds: input.row.deliveryIds,
      },
    ]),
  );
  return closed;
}

export async function closeRow(db: Firestore, input: CloseInput): Promise<boolean> {
  return (await closeRows(db, [input]))[0];
}
