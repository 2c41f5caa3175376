import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSchema } from '../../lib/ledger/migrations/check-schema';
import { SCHEMA_VERSION } from '../../lib/ledger/migrations/migrations';
import { readSchema, schemaRef } from '../../lib/ledger/migrations/schema-version';
import { runCycle } from '../../lib/cycle/run-cycle';
import { noFailpoints } from '../../lib/runtime/failpoints';
import { instrumentFirestore } from '../../scripts/bench/firestore-counter';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';
import { migrateStore, storeAtSchemaVersion } from '../support/schema';

/**
 * The cycle and the store's schema version: a run reads `schema/current` once, stamps a fresh
 * store (one create() however many runs start together), refuses on a store behind the code
 * (recorded, sent nothing, nothing migrated) and runs again once `scout migrate` has run.
 */

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const NOW = '2026-11-30T09:00:00Z';
const later = (minutes: number) => new Date(Date.parse(NOW) + minutes * 60_000).toISOString();

describe('a fresh store', () => {
  it.each([2, 6])('%i first runs started together stamp it once, with the code’s version, and all run', async (n) => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW), prefix: 'a' }));
    const runs = await Promise.all(Array.from({ length: n }, (_, i) => h.run({ now: NOW, lockName: `first-${i}` })));
    expect(runs.map((r) => r.kind)).toEqual(runs.map(() => 'ran'));
    const stamp = await schemaRef(h.db).get();
    expect(stamp.data()).toMatchObject({ version: SCHEMA_VERSION, origin: 'fresh', applying: null });
    // Created once and never written again.
    expect(stamp.updateTime!.isEqual(stamp.createTime!)).toBe(true);
    expect(await h.inbox()).toHaveLength(1);
  });

  it.each([2, 8])('%i checks of a fresh store at once: exactly one stamps it, and all find it current', async (n) => {
    const checks = await Promise.all(Array.from({ length: n }, () => checkSchema(h.db, { now: new Date(NOW), stamp: true })));
    expect(checks.filter((c) => c.stamped)).toHaveLength(1);
    expect(checks.map((c) => c.standing)).toEqual(checks.map(() => 'current'));
  });

  it('a dry run stamps nothing (it writes nothing) and plans as on a current store', async () => {
    const preview = await runCycle({ ...h.deps, failpoint: noFailpoints }, { now: new Date(NOW), dryRun: true, trigger: 'test' });
    expect(preview.kind).toBe('dry-run');
    expect(await readSchema(h.db)).toBeNull();
  });

  it('an ordinary run reads schema/current once and writes nothing there', async () => {
    await h.run({ now: NOW });
    const counter = instrumentFirestore();
    try {
      expect((await h.run({ now: later(15) })).kind).toBe('ran');
      expect(counter.byCollection().schema).toEqual({ reads: 1, writes: 0, deletes: 0 });
    } finally {
      counter.restore();
    }
    // The per-run walks of the queue are gone: no run writes their cursors any more.
    for (const walk of ['backfill-digest-due', 'backfill-shard-bucket'])
      expect((await h.db.collection('cursors').doc(walk).get()).exists).toBe(false);
  });
});

describe('a store behind the code', () => {
  it('older code’s store (a cursor, no schema document): runs refuse, recorded failed with what to do, and send nothing until `scout migrate`', async () => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    await h.db
      .collection('cursors')
      .doc('backfill-digest-due')
      .set({ after: null, doneAt: new Date(NOW), updated: 0 });
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW), prefix: 'a' }));

    const refused = await h.cron({ now: NOW });
    expect(refused.status).toBe(500);
    const run = await h.db.collection('runs').doc(refused.body.runId).get();
    expect(run.get('status')).toBe('failed');
    expect(run.get('errors')).toEqual([
      expect.stringMatching(new RegExp(`schema version 0 and this code needs ${SCHEMA_VERSION}: run \`scout migrate\``)),
    ]);
    // Nothing fetched, nothing claimed, nothing migrated by the run.
    expect((await h.db.collection('jobs').get()).size).toBe(0);
    expect(await readSchema(h.db)).toBeNull();
    expect(await h.inbox()).toHaveLength(0);
    // The lock was released: the next run is not skipped, it refuses again.
    expect((await h.cron({ now: later(1) })).status).toBe(500);

    expect(await migrateStore(h.db, { now: new Date(later(2)) })).toMatchObject({ from: 0, to: SCHEMA_VERSION });
    expect((await h.cron({ now: later(3) })).body).toMatchObject({ instantEmails: 1 });
    expect(await h.inbox()).toHaveLength(1);
  });

  it('a store at an older version refuses the dry run too (it would plan on what the code cannot read)', async () => {
    await storeAtSchemaVersion(h.db, SCHEMA_VERSION - 1);
    await expect(runCycle({ ...h.deps, failpoint: noFailpoints }, { now: new Date(NOW), dryRun: true, trigger: 'test' })).rejects.toThrow(
      /run `scout migrate`/,
    );
  });

  it('a store newer than the code (a rollback) still runs', async () => {
    await storeAtSchemaVersion(h.db, SCHEMA_VERSION + 1);
    expect((await h.run({ now: NOW })).kind).toBe('ran');
  });
});
