import { createRequire } from 'node:module';
import type { Firestore } from 'firebase-admin/firestore';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createFirestore } from '../../lib/store/firestore';
import { instrumentFirestore, resolveFirestoreModule, type FirestoreCounter } from '../../scripts/bench/firestore-counter';

let db: Firestore;
let counter: FirestoreCounter;
let col: FirebaseFirestore.CollectionReference;

beforeAll(() => {
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  process.env.METADATA_SERVER_DETECTION = 'none';
  db = createFirestore({ projectId: `bench-counter-${Date.now()}-${process.pid}` });
  counter = instrumentFirestore();
});
afterAll(() => counter.restore());

let n = 0;
beforeEach(() => {
  col = db.collection(`c${++n}`);
  counter.reset();
});

const seed = async (count: number, data: (i: number) => Record<string, unknown> = (i) => ({ i, tag: 'x' })) => {
  const batch = db.batch();
  for (let i = 0; i < count; i++) batch.set(col.doc(`d${i}`), data(i));
  await batch.commit();
  counter.reset();
};

describe('firestore counter', () => {
  it("patches the very classes firebase-admin's getFirestore() instantiates", () => {
    const require = createRequire(import.meta.url);
    expect(resolveFirestoreModule().path).toBe(
      require.resolve('@google-cloud/firestore', { paths: [require.resolve('firebase-admin/firestore')] }),
    );
    expect(db).toBeInstanceOf(resolveFirestoreModule().module.Firestore);
  });

  it('a batch of 3 creates is 3 writes in 1 round trip', async () => {
    const batch = db.batch();
    for (let i = 0; i < 3; i++) batch.create(col.doc(`d${i}`), { i });
    await batch.commit();
    expect(counter.snapshot()).toEqual({ reads: 0, writes: 3, roundTrips: 1 });
    expect(counter.rpcs()).toEqual({ commit: 1 });
  });

  it('a single create, set, update and delete are one write and one round trip each (not counted twice)', async () => {
    await col.doc('a').create({ v: 1 });
    expect(counter.snapshot()).toEqual({ reads: 0, writes: 1, roundTrips: 1 });
    await col.doc('a').set({ v: 2 });
    await col.doc('a').update({ v: 3 });
    await col.doc('a').delete();
    expect(counter.snapshot()).toEqual({ reads: 0, writes: 4, roundTrips: 4 });
  });

  it('a getAll of 5 refs is 5 reads in 1 round trip, missing documents included', async () => {
    await seed(3);
    await db.getAll(...[0, 1, 2, 3, 4].map((i) => col.doc(`d${i}`)));
    expect(counter.snapshot()).toEqual({ reads: 5, writes: 0, roundTrips: 1 });
    expect(counter.rpcs()).toEqual({ batchGetDocuments: 1 });
  });

  it('a doc.get is 1 read in 1 round trip', async () => {
    await seed(1);
    expect((await col.doc('d0').get()).exists).toBe(true);
    expect((await col.doc('nope').get()).exists).toBe(false);
    expect(counter.snapshot()).toEqual({ reads: 2, writes: 0, roundTrips: 2 });
  });

  it('a streamed query counts as its get(): 4 documents 4 reads, an empty one 1, a stream left early what it gave', async () => {
    await seed(6, (i) => ({ i, tag: i < 4 ? 'hit' : 'miss' }));
    let seen = 0;
    for await (const _ of col.where('tag', '==', 'hit').stream()) seen += 1;
    expect(seen).toBe(4);
    expect(counter.snapshot()).toEqual({ reads: 4, writes: 0, roundTrips: 1 });
    counter.reset();
    for await (const _ of col.where('tag', '==', 'none').stream()) seen += 1;
    expect(counter.snapshot()).toEqual({ reads: 1, writes: 0, roundTrips: 1 });
    counter.reset();
    for await (const _ of col.orderBy('i').stream()) if (++seen > 0) break;
    expect(counter.snapshot().reads).toBeGreaterThanOrEqual(1);
    expect(counter.snapshot().reads).toBeLessThanOrEqual(6);
    expect(counter.byCollection()).toEqual({ [col.id]: { reads: counter.snapshot().reads, writes: 0, deletes: 0 } });
  });

  it('a query returning 4 documents is 4 reads; an empty query is still 1', async () => {
    await seed(6, (i) => ({ i, tag: i < 4 ? 'hit' : 'miss' }));
    expect((await col.where('tag', '==', 'hit').get()).size).toBe(4);
    expect(counter.snapshot()).toEqual({ reads: 4, writes: 0, roundTrips: 1 });
    counter.reset();
    expect((await col.where('tag', '==', 'none').get()).size).toBe(0);
    expect(counter.snapshot()).toEqual({ reads: 1, writes: 0, roundTrips: 1 });
    expect(counter.rpcs()).toEqual({ runQuery: 1 });
  });

  it('a count() is 1 read per 1,000 entries, at least 1', async () => {
    await seed(5);
    expect((await col.count().get()).data().count).toBe(5);
    expect(counter.snapshot()).toEqual({ reads: 1, writes: 0, roundTrips: 1 });
  });

  it('a transaction counts its reads, its writes once, and each RPC of the attempt', async () => {
    await seed(1);
    await db.runTransaction(async (tx) => {
      const snap = await tx.get(col.doc('d0'));
      tx.update(col.doc('d0'), { i: snap.get('i') + 1 });
      tx.create(col.doc('new'), { i: 0 });
    });
    // The read starts the transaction lazily (no beginTransaction), then one commit of 2 writes.
    expect(counter.snapshot()).toEqual({ reads: 1, writes: 2, roundTrips: 2 });
  });

  it('a failed commit is a round trip without writes', async () => {
    await seed(1);
    const batch = db.batch();
    batch.create(col.doc('fresh'), {});
    batch.create(col.doc('d0'), {});
    await expect(batch.commit()).rejects.toThrow();
    expect(counter.snapshot()).toEqual({ reads: 0, writes: 0, roundTrips: 1 });
  });

  it('splits reads and writes by collection and names the deletes among the writes, so the bill prices them apart', async () => {
    const other = db.collection(`${col.id}-other`);
    await seed(3);
    const batch = db.batch();
    batch.create(other.doc('a'), { v: 1 });
    batch.update(col.doc('d0'), { v: 2 });
    batch.delete(col.doc('d1'));
    await batch.commit();
    await db.getAll(col.doc('d0'), other.doc('a'), other.doc('missing'));
    await col.where('tag', '==', 'x').get();
    await other.count().get();
    await db.runTransaction(async (tx) => {
      await tx.get(other.doc('a'));
      tx.delete(other.doc('a'));
    });
    expect(counter.byCollection()).toEqual({
      [col.id]: { reads: 1 + 2, writes: 2, deletes: 1 },
      [other.id]: { reads: 2 + 1 + 1, writes: 2, deletes: 1 },
    });
    const byCollection = Object.values(counter.byCollection());
    expect(byCollection.reduce((n, c) => n + c.reads, 0)).toBe(counter.snapshot().reads);
    expect(byCollection.reduce((n, c) => n + c.writes, 0)).toBe(counter.snapshot().writes);
    counter.reset();
    expect(counter.byCollection()).toEqual({});
  });

  it('instrumenting twice patches once; counters reset and restore independently', async () => {
    const second = instrumentFirestore();
    await col.doc('x').create({});
    expect(second.snapshot()).toEqual({ reads: 0, writes: 1, roundTrips: 1 });
    expect(counter.snapshot()).toEqual({ reads: 0, writes: 1, roundTrips: 1 });
    second.reset();
    await col.doc('x').get();
    expect(second.snapshot()).toEqual({ reads: 1, writes: 0, roundTrips: 1 });
    second.restore();
    second.restore();
    await col.doc('x').get();
    expect(counter.snapshot()).toEqual({ reads: 2, writes: 1, roundTrips: 3 });
  });

  it('restore puts the prototypes back once the last counter is restored', async () => {
    const { module } = resolveFirestoreModule();
    const patched = module.Firestore.prototype.request;
    const only = instrumentFirestore();
    counter.restore();
    expect(module.Firestore.prototype.request).toBe(patched);
    only.restore();
    expect(module.Firestore.prototype.request).not.toBe(patched);
    await col.doc('y').create({});
    expect(only.snapshot()).toEqual({ reads: 0, writes: 0, roundTrips: 0 });
    counter = instrumentFirestore();
    await col.doc('y').get();
    expect(counter.snapshot()).toEqual({ reads: 1, writes: 0, roundTrips: 1 });
  });
});
