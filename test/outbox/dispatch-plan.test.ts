import { Timestamp } from 'firebase-admin/firestore';
import { describe, expect, it } from 'vitest';
import { shardOf } from '../../lib/runtime/shard';
import {
  loneLeaseBatches,
  pendingLeaseBatches,
  planSends,
  providerBatchSize,
  ROWS_PER_LEASE,
  rowsIn,
  sortAbandoned,
  type PlannedSend,
} from '../../lib/outbox/dispatch-plan';
import { MAX_BATCH_BYTES } from '../../lib/outbox/dispatch-stats';
import type { Lease } from '../../lib/outbox/lease-row';
import { MAX_BATCH_EMAILS } from '../../lib/mail/mailer';
import type { OutboxRow } from '../../lib/outbox/outbox-row';

/**
 * Which rows the dispatcher leases together and which leases go to the provider in one request,
 * as tables. No emulator: the plan is pure; test/outbox/dispatch-outbox.emulator.test.ts and
 * batch-sends.emulator.test.ts check that the dispatcher carries it out.
 */

const listed = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => ({ emailKey: `${prefix}${i}`, uid: `u${i}` }));

type LeaseState = 'fresh' | 'tried' | 'packed';
const lease = (emailKey: string, state: LeaseState, bytes = 0): Lease => ({
  emailKey,
  attempts: 1,
  updateTime: Timestamp.fromMillis(0),
  row: {
    kind: 'digest',
    batchKey: state === 'packed' ? 'batch_1' : null,
    batchMembers: state === 'packed' ? ['s0', 's1'] : null,
    firstAttemptAt: state === 'fresh' ? null : new Date(0),
    payload: { to: 'a@example.com', from: 'scout@example.com', subject: 's', html: 'x'.repeat(bytes), text: '', headers: {} },
  } as unknown as OutboxRow,
});

/** A plan as the keys it names, so a table row reads at a glance. */
const shape = (sends: PlannedSend[]) =>
  sends.map((s) => (s.send === 'alone' ? { alone: s.lease.emailKey } : { [s.send]: s.leases.map((l) => l.emailKey) }));

describe('planSends: the provider requests one lease batch goes out in', () => {
  it.each([
    {
      name: 'never-tried rows leased to be packed go out as one provider batch',
      leases: [lease('f0', 'fresh'), lease('f1', 'fresh'), lease('f2', 'fresh')],
      pack: true,
      batchSize: 100,
      expected: [{ pack: ['f0', 'f1', 'f2'] }],
    },
    {
      name: 'a row tried before goes alone, under its own key: nothing may change the request it was first sent in',
      leases: [lease('f0', 'fresh'), lease('t0', 'tried'), lease('f1', 'fresh')],
      pack: true,
      batchSize: 100,
      expected: [{ alone: 't0' }, { pack: ['f0', 'f1'] }],
    },
    {
      name: 'rows a lease found packed go out first, as the batch they were packed into',
      leases: [lease('f0', 'fresh'), lease('s0', 'packed'), lease('s1', 'packed'), lease('f1', 'fresh')],
      pack: true,
      batchSize: 100,
      expected: [{ packed: ['s0', 's1'] }, { pack: ['f0', 'f1'] }],
    },
    {
      name: 'without packing every row goes alone, in order',
      leases: [lease('f0', 'fresh'), lease('t0', 'tried'), lease('f1', 'fresh')],
      pack: false,
      batchSize: 1,
      expected: [{ alone: 'f0' }, { alone: 't0' }, { alone: 'f1' }],
    },
    {
      name: 'a provider batch holds at most batchSize emails; one left over goes alone',
      leases: [lease('f0', 'fresh'), lease('f1', 'fresh'), lease('f2', 'fresh')],
      pack: true,
      batchSize: 2,
      expected: [{ pack: ['f0', 'f1'] }, { alone: 'f2' }],
    },
    {
      name: 'a provider batch stays under MAX_BATCH_BYTES however long its digests',
      leases: [
        lease('f0', 'fresh', MAX_BATCH_BYTES / 2),
        lease('f1', 'fresh', MAX_BATCH_BYTES / 2),
        lease('f2', 'fresh'),
        lease('f3', 'fresh'),
      ],
      pack: true,
      batchSize: 100,
      expected: [{ alone: 'f0' }, { pack: ['f1', 'f2', 'f3'] }],
    },
    { name: 'no lease, no request', leases: [], pack: true, batchSize: 100, expected: [] },
  ])('$name', ({ leases, pack, batchSize, expected }) => {
    expect(shape(planSends(leases, { pack, batchSize }))).toEqual(expected);
  });
});

describe('sortAbandoned: rows whose sender died', () => {
  it('a packed batch is recovered once, whole, from its member list; every other row is leased again alone', () => {
    const { batches, lone } = sortAbandoned([
      { emailKey: 'a', uid: 'ua', batchKey: 'batch_1', batchMembers: ['a', 'b'] },
      { emailKey: 'x', uid: 'ux', batchKey: null, batchMembers: null },
      { emailKey: 'b', uid: 'ub', batchKey: 'batch_1', batchMembers: ['a', 'b'] },
      { emailKey: 'y', uid: 'uy', batchKey: 'batch_2', batchMembers: null },
    ]);
    expect([...batches]).toEqual([['batch_1', ['a', 'b']]]);
    expect(lone).toEqual([
      { emailKey: 'x', uid: 'ux' },
      { emailKey: 'y', uid: 'uy' },
    ]);
  });
});

describe('lease batches: which rows are leased together', () => {
  it('abandoned rows picked up alone are leased ROWS_PER_LEASE at a time and never packed', () => {
    const batches = loneLeaseBatches(listed(ROWS_PER_LEASE + 1));
    expect(batches.map((b) => [b.rows.length, b.pack])).toEqual([
      [ROWS_PER_LEASE, false],
      [1, false],
    ]);
  });

  it('with batching on, pending rows are leased a provider batch at a time and packed', () => {
    const batches = pendingLeaseBatches(listed(5), { batchSize: 2 });
    expect(batches.map((b) => [b.rows.map((r) => r.emailKey), b.pack])).toEqual([
      [['r0', 'r1'], true],
      [['r2', 'r3'], true],
      [['r4'], true],
    ]);
    expect(rowsIn(batches)).toBe(5);
  });

  it('with batching off, pending rows are still leased ROWS_PER_LEASE at a time, unpacked', () => {
    const batches = pendingLeaseBatches(listed(ROWS_PER_LEASE * 2), { batchSize: 1 });
    expect(batches.map((b) => [b.rows.length, b.pack])).toEqual([
      [ROWS_PER_LEASE, false],
      [ROWS_PER_LEASE, false],
    ]);
  });

  it('a shard leases only its own subscribers’ rows, and every row belongs to exactly one shard', () => {
    const rows = listed(40);
    const shards = [0, 1, 2].map((index) => pendingLeaseBatches(rows, { batchSize: 100, shard: { index, count: 3 } }));
    const keys = shards.map((batches) => batches.flatMap((b) => b.rows.map((r) => r.emailKey)));
    expect(keys.flat().sort()).toEqual(rows.map((r) => r.emailKey).sort());
    for (const [index, batch] of shards.entries()) for (const row of batch.flatMap((b) => b.rows)) expect(shardOf(row.uid, 3)).toBe(index);
  });

  it('a provider request carries at most the provider’s limit, whatever the setting', () => {
    expect(providerBatchSize(10_000)).toBe(MAX_BATCH_EMAILS);
    expect(providerBatchSize(7)).toBe(7);
  });
});
