import { Timestamp, type Firestore } from 'firebase-admin/firestore';
import { describe, expect, it } from 'vitest';
import { applyMigrations, StepTakenOver } from '../../../lib/ledger/migrations/apply-migrations';
import type { Migration, MigrationContext } from '../../../lib/ledger/migrations/migration';
import { STEP_LEASE_MS } from '../../../lib/ledger/migrations/plan-step';
import { readSchema } from '../../../lib/ledger/migrations/schema-version';
import { SCHEMA_VERSION } from '../../../lib/ledger/migrations/migrations';
import { shardBucketOf } from '../../../lib/runtime/shard';
import { subscriberId } from '../../../lib/subscribers/subscriber';
import { deferred, until } from '../../support/deferred';
import { migrateStore } from '../../support/schema';
import { freshStores } from '../../support/fresh-store';

const NOW = new Date('2026-12-06T10:00:00Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

/** A store of its own on the shared emulator, so two stores can be compared (killed vs uninterrupted). */
const freshStore = freshStores('scout-schema');

const ITEMS = Array.from({ length: 6 }, (_, i) => `item-${i}`);

/**
 * A test's migrations: step k sets `v{k}` on each of ITEMS in id order, checkpointing after each,
 * and refuses to start unless every item has the step before it (so order is checked by the store
 * itself). `calls` lists each apply() with the checkpoint it was given to resume from.
 */
function walkers(count: number, hooks: { onItem?: (version: number, item: string, ctx: MigrationContext) => Promise<void> } = {}) {
  const calls: { version: number; resumeAfter: string | null }[] = [];
  const migrations: Migration[] = Array.from({ length: count }, (_, i) => {
    const version = i + 1;
    return {
      version,
      name: `walk-${version}`,
      changes: `sets v${version}`,
      why: 'a test',
      async apply(ctx) {
        calls.push({ version, resumeAfter: ctx.resumeAfter });
        const items = (await ctx.db.collection('items').orderBy('__name__').get()).docs;
        if (version > 1 && items.some((d) => d.get(`v${version - 1}`) !== true))
          throw new Error(`walk-${version} ran before walk-${version - 1}`);
        let changed = 0;
        for (const doc of items.filter((d) => ctx.resumeAfter === null || d.id > ctx.resumeAfter)) {
          await doc.ref.update({ [`v${version}`]: true, [`writes${version}`]: (doc.get(`writes${version}`) ?? 0) + 1 });
          changed += 1;
          await ctx.checkpoint(doc.id);
          await hooks.onItem?.(version, doc.id, ctx);
        }
        return { changed };
      },
    };
  });
  return { migrations, calls };
}

async function seedItems(db: Firestore) {
  await Promise.all(ITEMS.map((id) => db.collection('items').doc(id).set({ n: id })));
}

const writesOf = async (db: Firestore, version: number) =>
  (await db.collection('items').orderBy('__name__').get()).docs.map((d) => d.get(`writes${version}`) as number);

const run = (db: Firestore, migrations: Migration[], input: { owner?: string; at?: Date } = {}) =>
  applyMigrations(db, { owner: input.owner ?? 'run-a', clock: () => input.at ?? NOW, digestHourUtc: 8, migrations });

describe('scout migrate applies each numbered migration once, in order', () => {
  it('from a store with no schema document: every step in order, each recorded; a second run changes nothing', async () => {
    const db = freshStore();
    await seedItems(db);
    const { migrations, calls } = walkers(3);
    const first = await run(db, migrations);
    expect(first).toMatchObject({ from: 0, to: 3, code: 3, busy: null });
    expect(first.applied.map((a) => [a.version, a.changed])).toEqual([
      [1, 6],
      [2, 6],
      [3, 6],
    ]);
    expect(calls.map((c) => c.version)).toEqual([1, 2, 3]);
    const stored = await readSchema(db);
    expect(stored).toMatchObject({ version: 3, applying: null });
    expect(stored?.applied.map((a) => [a.version, a.name, a.owner])).toEqual([
      [1, 'walk-1', 'run-a'],
      [2, 'walk-2', 'run-a'],
      [3, 'walk-3', 'run-a'],
    ]);

    const before = (await db.collection('schema').doc('current').get()).updateTime;
    const second = await run(db, migrations, { owner: 'run-b' });
    expect(second).toMatchObject({ from: 3, to: 3, applied: [] });
    expect(calls).toHaveLength(3);
    expect((await db.collection('schema').doc('current').get()).updateTime!.isEqual(before!)).toBe(true);
  });

  it('a run that stopped between steps: the next applies only the steps after it', async () => {
    const db = freshStore();
    await seedItems(db);
    const { migrations, calls } = walkers(3);
    // Code at version 1 ran: the same as a run of version 3 that died right after recording step 1.
    expect((await run(db, migrations.slice(0, 1))).to).toBe(1);
    const next = await run(db, migrations, { owner: 'run-b' });
    expect(next.applied.map((a) => a.version)).toEqual([2, 3]);
    expect(calls.map((c) => c.version)).toEqual([1, 2, 3]);
    for (const version of [1, 2, 3]) expect(await writesOf(db, version)).toEqual(ITEMS.map(() => 1));
  });

  it('a run that died inside a step: the step waits for its lease, then the next run resumes it from the last checkpoint', async () => {
    const db = freshStore();
    await seedItems(db);
    const dead = deferred<void>();
    const dying = walkers(3, { onItem: (version, item) => (version === 2 && item === 'item-2' ? dead.promise : Promise.resolve()) });
    // Never settles: the process died after its checkpoint at item-2 of step 2.
    run(db, dying.migrations).catch(() => {});
    await until(async () => {
      const applying = (await readSchema(db))?.applying;
      return applying?.version === 2 && applying.after === 'item-2';
    }, 'the checkpoint at item-2 of step 2');

    const { migrations, calls } = walkers(3);
    const tooSoon = await run(db, migrations, { owner: 'run-b', at: later(STEP_LEASE_MS - 1) });
    expect(tooSoon).toMatchObject({ to: 1, applied: [], busy: { version: 2, owner: 'run-a', after: 'item-2' } });

    const resumed = await run(db, migrations, { owner: 'run-b', at: later(STEP_LEASE_MS + 1) });
    expect(resumed.applied.map((a) => a.version)).toEqual([2, 3]);
    expect(calls[0]).toEqual({ version: 2, resumeAfter: 'item-2' });
    // Items up to the checkpoint were not written again.
    expect(await writesOf(db, 2)).toEqual(ITEMS.map(() => 1));
    expect((await readSchema(db))?.applied.map((a) => [a.version, a.owner])).toEqual([
      [1, 'run-a'],
      [2, 'run-b'],
      [3, 'run-b'],
    ]);
  });

  it('a run whose step was taken over after its lease lapsed stops at its next checkpoint and records nothing', async () => {
    const db = freshStore();
    await seedItems(db);
    const stalled = deferred<void>();
    let clock = NOW;
    const slow = walkers(1, { onItem: (_v, item) => (item === 'item-1' ? stalled.promise : Promise.resolve()) });
    const first = applyMigrations(db, { owner: 'run-a', clock: () => clock, digestHourUtc: 8, migrations: slow.migrations });
    await until(async () => (await readSchema(db))?.applying?.after === 'item-1', 'the checkpoint at item-1');

    clock = later(STEP_LEASE_MS + 1);
    expect((await run(db, walkers(1).migrations, { owner: 'run-b', at: clock })).applied.map((a) => a.version)).toEqual([1]);
    stalled.resolve();
    await expect(first).rejects.toBeInstanceOf(StepTakenOver);
    expect((await readSchema(db))?.applied.map((a) => [a.version, a.owner])).toEqual([[1, 'run-b']]);
  });

  it('a step that fails frees its lease at once: the next run resumes it from its checkpoint without waiting', async () => {
    const db = freshStore();
    await seedItems(db);
    const failing = walkers(2, {
      onItem: async (version, item) => {
        if (version === 2 && item === 'item-3') throw new Error('the store said no');
      },
    });
    await expect(run(db, failing.migrations)).rejects.toThrow('the store said no');
    expect(await readSchema(db)).toMatchObject({ version: 1, applying: { version: 2, after: 'item-3', leaseUntil: NOW } });

    const { migrations, calls } = walkers(2);
    expect((await run(db, migrations, { owner: 'run-b' })).applied.map((a) => a.version)).toEqual([2]);
    expect(calls).toEqual([{ version: 2, resumeAfter: 'item-3' }]);
  });

  it.each([2, 8])('%i runs started together: each step is applied by exactly one of them', async (n) => {
    const db = freshStore();
    await seedItems(db);
    const { migrations, calls } = walkers(3, { onItem: () => new Promise((resolve) => setTimeout(resolve, 5)) });
    const reports = await Promise.all(Array.from({ length: n }, (_, i) => run(db, migrations, { owner: `run-${i}` })));

    expect(calls.map((c) => c.version).sort()).toEqual([1, 2, 3]);
    expect(reports.flatMap((r) => r.applied.map((a) => a.version)).sort()).toEqual([1, 2, 3]);
    for (const version of [1, 2, 3]) expect(await writesOf(db, version)).toEqual(ITEMS.map(() => 1));
    // The others stopped at the step one of them held, or found the store done.
    for (const r of reports) expect(r.busy !== null || r.to === 3).toBe(true);
    expect(await readSchema(db)).toMatchObject({ version: 3, applying: null });
    expect((await readSchema(db))?.applied.map((a) => a.version)).toEqual([1, 2, 3]);
  });

  it('a store newer than the code: nothing is applied', async () => {
    const db = freshStore();
    const { migrations, calls } = walkers(2);
    await run(db, walkers(3).migrations);
    expect(await run(db, migrations, { owner: 'run-old' })).toMatchObject({ from: 3, to: 3, code: 2, applied: [] });
    expect(calls).toEqual([]);
  });
});

describe("the deployment's migrations on a store older code left", () => {
  const created = Timestamp.fromDate(new Date('2026-11-30T06:00:00Z'));
  const expireAt = Timestamp.fromDate(new Date('2026-12-30T00:00:00Z'));

  it('day documents, queued items without a due instant or bucket, minBudget and a subscriber without a query all come out in the current shape; then nothing more', async () => {
    const db = freshStore();
    // The first ledger: one day document with one queued delivery.
    await db
      .collection('deliveries')
      .doc('uid-a_2026-11-29')
      .set({
        uid: 'uid-a',
        day: '2026-11-29',
        deliveries: {
          'rss_a-1': {
            uid: 'uid-a',
            jobId: 'rss_a-1',
            mode: 'daily',
            status: 'queued',
            score: 70,
            reasons: [],
            digestDate: '2026-11-29',
            runId: 'r0',
            createdAt: created,
          },
        },
        expireAt,
      });
    // A per-pair item queued before schedules and before buckets.
    await db.collection('deliveries').doc('uid-b_rss_b-1').set({
      uid: 'uid-b',
      jobId: 'rss_b-1',
      mode: 'daily',
      status: 'queued',
      score: 60,
      reasons: [],
      emailKey: null,
      digestDate: '2026-11-30',
      reason: null,
      runId: 'r1',
      createdAt: created,
      sentAt: null,
      expireAt,
    });
    const ada = subscriberId('ada@example.com');
    // As the code before per-kind minimums wrote a subscriber (paused: no match index entry to keep in step).
    await db
      .collection('users')
      .doc(ada)
      .set({
        email: 'ada@example.com',
        keywords: ['react'],
        excludes: [],
        minBudget: 500,
        mode: 'daily',
        about: '',
        profileVersion: 1,
        fitThreshold: 60,
        status: 'paused',
        timezone: 'UTC',
        digestHour: null,
        weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        weeklyDay: 'mon',
        createdAt: created,
        confirmedAt: created,
        updatedAt: created,
      });

    const report = await migrateStore(db, { now: NOW, digestHourUtc: 6 });
    expect(report).toMatchObject({ from: 0, to: SCHEMA_VERSION, busy: null });
    expect(report.applied.map((a) => [a.name, a.changed])).toEqual([
      ['per-pair-ledger', 1],
      ['digest-due', 1],
      ['shard-bucket', 1],
      ['min-pay', 1],
      ['queries', 1],
    ]);
    const deliveries = Object.fromEntries((await db.collection('deliveries').get()).docs.map((d) => [d.id, d.data()]));
    expect(Object.keys(deliveries).sort()).toEqual(['uid-a_rss_a-1', 'uid-b_rss_b-1']);
    expect(deliveries['uid-a_rss_a-1']).toMatchObject({ status: 'queued', shardBucket: shardBucketOf('uid-a') });
    expect(deliveries['uid-a_rss_a-1'].digestDueAt.toDate()).toEqual(new Date('2026-11-29T06:00:00Z'));
    expect(deliveries['uid-b_rss_b-1']).toMatchObject({ status: 'queued', shardBucket: shardBucketOf('uid-b') });
    expect(deliveries['uid-b_rss_b-1'].digestDueAt.toDate()).toEqual(new Date('2026-11-30T06:00:00Z'));
    const user = (await db.collection('users').doc(ada).get()).data()!;
    expect(user.minBudget).toBeUndefined();
    expect(user.minPay).toMatchObject({ fixed: { amount: 500, currency: 'USD' } });
    // Its keyword list as the query it has always been.
    expect(user.query).toBe('react');

    expect(await migrateStore(db, { now: later(60_000) })).toMatchObject({ applied: [], to: SCHEMA_VERSION });
  });

  it('a store whose cycles finished the queue walks before migrations existed: those steps read their cursor and write nothing', async () => {
    const db = freshStore();
    await db.collection('cursors').doc('backfill-digest-due').set({ after: null, doneAt: NOW, updated: 3 });
    await db.collection('cursors').doc('backfill-shard-bucket').set({ since: NOW, after: null, doneAt: NOW, updated: 3 });
    // Left as it is: the walks recorded they were done, so no such item can be left (this one is only a witness).
    await db.collection('deliveries').doc('uid-c_rss_c-1').set({ uid: 'uid-c', status: 'queued', digestDate: '2026-11-30' });

    const report = await migrateStore(db, { now: NOW });
    expect(report.applied.filter((a) => a.name === 'digest-due' || a.name === 'shard-bucket')).toEqual([
      expect.objectContaining({ changed: 0, note: 'already done by the cycles (cursors/backfill-digest-due)' }),
      expect.objectContaining({ changed: 0, note: 'already done by the cycles (cursors/backfill-shard-bucket)' }),
    ]);
    expect((await db.collection('deliveries').doc('uid-c_rss_c-1').get()).data()).toEqual({
      uid: 'uid-c',
      status: 'queued',
      digestDate: '2026-11-30',
    });
  });

  it('a day document that does not read as one blocks its step: named, left in place, the store stays behind', async () => {
    const db = freshStore();
    await db.collection('deliveries').doc('uid-d_2026-11-29').set({ day: '2026-11-29', expireAt });
    await expect(migrateStore(db, { now: NOW })).rejects.toThrow(/deliveries\/uid-d_2026-11-29; fix or delete them/);
    expect(await readSchema(db)).toMatchObject({ version: 0, applying: { version: 1, leaseUntil: NOW } });
  });
});
