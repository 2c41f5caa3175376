import { Timestamp, type Firestore } from 'firebase-admin/firestore';
import { describe, expect, it } from 'vitest';
import { shardBucketOf } from '../../lib/runtime/shard';
import { deliveriesCollection } from '../../lib/ledger/delivery';
import { migrateLedger, MIGRATION_CURSOR, type MigrationFailpoint, type MigrationProgress } from '../../lib/ledger/migrate-ledger';
import { freshStores } from '../support/fresh-store';

const NOW = new Date('2026-12-01T07:00:00Z');
const EXPIRE = Timestamp.fromDate(new Date('2026-12-30T00:00:00Z'));
const CREATED = Timestamp.fromDate(new Date('2026-11-30T06:00:00.123Z'));

/** A store of its own on the shared emulator, so two stores can be compared (killed vs uninterrupted). */
const freshStore = freshStores('scout-migrate');

/** One delivery as the first ledger stored it on a day document (deliveryToFirestore in main's delivery.ts). */
type OldDelivery = {
  jobId: string;
  mode: 'instant' | 'daily';
  status: 'queued' | 'sending' | 'skipped';
  score: number;
  reasons: string[];
  emailKey: string | null;
  digestDate: string | null;
  reason: string | null;
  runId: string;
  createdAt: Timestamp;
};

const old = (jobId: string, fields: Partial<OldDelivery> = {}): OldDelivery => ({
  jobId,
  mode: 'daily',
  status: 'queued',
  score: 70,
  reasons: ['keyword: react'],
  emailKey: null,
  digestDate: '2026-11-30',
  reason: null,
  runId: 'run-old',
  createdAt: CREATED,
  ...fields,
});

/** Writes a day document exactly as the first ledger did: deliveries/{uid}_{day}. */
async function seedDayDocument(db: Firestore, uid: string, day: string, deliveries: OldDelivery[]) {
  await db
    .collection('deliveries')
    .doc(`${uid}_${day}`)
    .set({
      uid,
      day,
      deliveries: Object.fromEntries(deliveries.map((d) => [d.jobId, d])),
      pendingDigest: deliveries.some((d) => d.status === 'queued') ? day : null,
      expireAt: EXPIRE,
    });
}

/** Day documents for `subscribers` × `days`, three deliveries each: 3 × subscribers × days pairs. */
async function seedMany(db: Firestore, subscribers: number, days: number) {
  const writes: Promise<unknown>[] = [];
  for (let s = 0; s < subscribers; s++)
    for (let d = 0; d < days; d++) {
      const day = `2026-11-${String(10 + d).padStart(2, '0')}`;
      writes.push(
        seedDayDocument(
          db,
          `uid-${s}`,
          day,
          [0, 1, 2].map((j) => old(`rss_${day}-${j}`, { score: 50 + j, digestDate: day })),
        ),
      );
    }
  await Promise.all(writes);
}

/** Every document of the collections, with the time it was last written: equal dumps mean nothing was written. */
async function dump(db: Firestore, collections = ['deliveries', 'cursors']) {
  const out: Record<string, { data: unknown; updateTime: string }> = {};
  for (const name of collections)
    for (const doc of (await db.collection(name).get()).docs)
      out[`${name}/${doc.id}`] = { data: doc.data(), updateTime: doc.updateTime.toDate().toISOString() + doc.updateTime.nanoseconds };
  return out;
}

/** The documents' data only: what two stores are compared by. */
async function contents(db: Firestore, collection = 'deliveries') {
  return Object.fromEntries((await db.collection(collection).get()).docs.map((d) => [d.id, d.data()]));
}

const migrate = (db: Firestore, options: { dryRun?: boolean; batchSize?: number; failpoint?: MigrationFailpoint } = {}) =>
  migrateLedger(db, { dryRun: false, now: NOW, ...options });

class Killed extends Error {}

describe('migrateLedger: day documents to per-pair documents', () => {
  it('carries every delivery over exactly (status, score, reasons, email key, digest date, reason, runId, createdAt) with sentAt null and the day document expireAt, and deletes the day document', async () => {
    const db = freshStore();
    const dayDocument = [
      old('rss_a1', {
        mode: 'instant',
        status: 'sending',
        digestDate: null,
        emailKey: 'alert_uid-ada_h4sh',
        score: 91,
        reasons: ['keyword: react', 'fit: 8'],
      }),
      old('rss_a2', { mode: 'instant', status: 'skipped', digestDate: null, reason: 'alert_cap', score: 12 }),
      old('rss_d1', { status: 'queued', digestDate: '2026-12-01', score: 64.5, runId: 'run-7' }),
      // Taken by yesterday's digest claim: stays `sending`, bound to its row, never back to queued.
      old('rss_d2', { status: 'sending', emailKey: 'digest_uid-ada_2026-11-30', reasons: [] }),
      old('rss_d3', { status: 'skipped', reason: 'subscriber_paused' }),
    ];
    await seedDayDocument(db, 'uid-ada', '2026-11-30', dayDocument);

    const report = await migrate(db);

    expect(report).toMatchObject({ dayDocuments: 1, deliveries: 5, skippedExisting: 0, unreadable: [] });
    const stored = await contents(db);
    expect(Object.keys(stored).sort()).toEqual(dayDocument.map((d) => `uid-ada_${d.jobId}`).sort());
    for (const d of dayDocument)
      expect(stored[`uid-ada_${d.jobId}`]).toEqual({
        uid: 'uid-ada',
        jobId: d.jobId,
        mode: d.mode,
        status: d.status,
        score: d.score,
        reasons: d.reasons,
        emailKey: d.emailKey,
        digestDate: d.digestDate,
        reason: d.reason,
        runId: d.runId,
        createdAt: d.createdAt,
        sentAt: null,
        expireAt: EXPIRE,
        // A queued pair is found by the flush's query (due instant, shard bucket) even if the backfills finished long ago.
        ...(d.status === 'queued'
          ? { digestDueAt: Timestamp.fromDate(new Date(`${d.digestDate}T08:00:00Z`)), shardBucket: shardBucketOf('uid-ada') }
          : {}),
      });
    // And the current code reads them through its own converter.
    const read = await deliveriesCollection(db).doc('uid-ada_rss_d2').get();
    expect(read.data()).toMatchObject({ status: 'sending', emailKey: 'digest_uid-ada_2026-11-30', createdAt: CREATED.toDate() });
  });

  it('a queued pair migrated after the backfills are done is due at its day at DIGEST_HOUR_UTC and carries its shard bucket, so the flush (sharded or not) finds it', async () => {
    const db = freshStore();
    await seedDayDocument(db, 'uid-bo', '2026-11-30', [old('rss_q1', { status: 'queued', digestDate: '2026-11-30', score: 50 })]);

    await migrateLedger(db, { dryRun: false, now: NOW, digestHourUtc: 6 });

    const read = (await deliveriesCollection(db).doc('uid-bo_rss_q1').get()).data();
    expect(read).toMatchObject({ status: 'queued', digestDueAt: new Date('2026-11-30T06:00:00Z'), shardBucket: shardBucketOf('uid-bo') });
  });

  it('run twice: the second run migrates 0 day documents and writes nothing, not even its cursor', async () => {
    const db = freshStore();
    await seedMany(db, 4, 3);
    const first = await migrate(db, { batchSize: 5 });
    expect(first).toMatchObject({ dayDocuments: 12, deliveries: 36, skippedExisting: 0 });
    const before = await dump(db);

    // An hour later: a cursor written again would say so in its updatedAt.
    const second = await migrateLedger(db, { dryRun: false, now: new Date(NOW.getTime() + 3_600_000), batchSize: 5 });

    expect(second).toMatchObject({ dayDocuments: 0, deliveries: 0, skippedExisting: 0 });
    expect(await dump(db)).toEqual(before);
    expect(before[`cursors/${MIGRATION_CURSOR}`].data).toMatchObject({ dayDocuments: 12, deliveries: 36, doneAt: Timestamp.fromDate(NOW) });
  });

  it('a run killed between day documents continues after the last day document it finished, and ends as one uninterrupted run', async () => {
    const [killed, whole] = [freshStore(), freshStore()];
    await Promise.all([seedMany(killed, 5, 4), seedMany(whole, 5, 4)]);
    let chunks = 0;
    const progress: MigrationProgress[] = [];
    // Killed after its third chunk committed, before that chunk's cursor was saved.
    const dies: MigrationFailpoint = async (point) => {
      if (point === 'before-cursor-save' && ++chunks === 3) throw new Killed();
    };
    await expect(
      migrateLedger(killed, { dryRun: false, now: NOW, batchSize: 4, failpoint: dies, onProgress: (p) => progress.push(p) }),
    ).rejects.toThrow(Killed);
    expect(progress.map((p) => p.dayDocuments)).toEqual([4, 8]);
    const cursor = (await killed.collection('cursors').doc(MIGRATION_CURSOR).get()).data();
    expect(cursor).toMatchObject({ dayDocuments: 8, deliveries: 24, doneAt: null });

    const resumed = await migrate(killed, { batchSize: 4 });
    await migrate(whole, { batchSize: 4 });

    expect(resumed.resumedAfter).toBe(cursor!.lastDayDocumentId);
    expect(resumed).toMatchObject({ dayDocuments: 20 - 12, deliveries: 24, skippedExisting: 0 });
    expect(await contents(killed)).toEqual(await contents(whole));
    expect(Object.keys(await contents(killed))).toHaveLength(60);
    expect((await killed.collection('cursors').doc(MIGRATION_CURSOR).get()).data()).toMatchObject({ doneAt: Timestamp.fromDate(NOW) });
  });

  it('--dry-run writes nothing (no pair, no delete, no cursor) and counts what the run then does', async () => {
    const db = freshStore();
    await seedMany(db, 3, 3);
    await deliveriesCollection(db).doc('uid-0_rss_2026-11-10-0').create({
      uid: 'uid-0',
      jobId: 'rss_2026-11-10-0',
      mode: 'daily',
      status: 'sent',
      score: 50,
      reasons: [],
      emailKey: 'digest_uid-0_2026-11-10',
      digestDate: '2026-11-10',
      reason: null,
      runId: 'run-new',
      createdAt: NOW,
      sentAt: NOW,
      expireAt: NOW,
    });
    const before = await dump(db);
    const dryProgress: MigrationProgress[] = [];

    const dry = await migrateLedger(db, { dryRun: true, now: NOW, batchSize: 4, onProgress: (p) => dryProgress.push(p) });

    expect(await dump(db)).toEqual(before);
    expect(dry).toMatchObject({ dryRun: true, dayDocuments: 9, deliveries: 26, skippedExisting: 1 });
    expect(dryProgress.map((p) => p.dayDocuments)).toEqual([4, 8, 9]);
    const real = await migrate(db, { batchSize: 4 });
    expect(real).toMatchObject({ dayDocuments: dry.dayDocuments, deliveries: dry.deliveries, skippedExisting: dry.skippedExisting });
  });

  it('a per-pair document that already exists is never overwritten; the day document’s other pairs are still created and the day document deleted', async () => {
    const db = freshStore();
    await seedDayDocument(db, 'uid-bea', '2026-11-30', [old('rss_x1'), old('rss_x2', { score: 80 }), old('rss_x3')]);
    // The current code settled this pair already (its digest went out): the day document's `queued` copy is older.
    const settled = {
      uid: 'uid-bea',
      jobId: 'rss_x2',
      mode: 'daily' as const,
      status: 'sent' as const,
      score: 80,
      reasons: ['keyword: react'],
      emailKey: 'digest_uid-bea_2026-11-30',
      digestDate: '2026-11-30',
      reason: null,
      runId: 'run-new',
      createdAt: NOW,
      sentAt: NOW,
      expireAt: NOW,
    };
    await deliveriesCollection(db).doc('uid-bea_rss_x2').create(settled);
    const existing = (await dump(db))['deliveries/uid-bea_rss_x2'];

    const report = await migrate(db);

    expect(report).toMatchObject({ dayDocuments: 1, deliveries: 2, skippedExisting: 1 });
    const after = await dump(db);
    expect(after['deliveries/uid-bea_rss_x2']).toEqual(existing);
    expect(
      Object.keys(after)
        .filter((k) => k.startsWith('deliveries/'))
        .sort(),
    ).toEqual(['deliveries/uid-bea_rss_x1', 'deliveries/uid-bea_rss_x2', 'deliveries/uid-bea_rss_x3']);
  });

  it('a day document of 1,200 deliveries migrates whole across several batches, also when killed between its pairs and its delete', async () => {
    const [killed, whole] = [freshStore(), freshStore()];
    const big = Array.from({ length: 1_200 }, (_, i) => old(`rss_${String(i).padStart(5, '0')}`, { score: i % 100 }));
    await Promise.all([
      seedDayDocument(killed, 'uid-cid', '2026-11-30', big),
      seedDayDocument(whole, 'uid-cid', '2026-11-30', big),
      seedDayDocument(killed, 'uid-dan', '2026-11-30', [old('rss_small')]),
      seedDayDocument(whole, 'uid-dan', '2026-11-30', [old('rss_small')]),
    ]);

    const dies: MigrationFailpoint = async (point) => {
      if (point === 'before-day-document-delete') throw new Killed();
    };
    await expect(migrate(killed, { failpoint: dies })).rejects.toThrow(Killed);
    // Every pair is there, and so is the day document: the next run must find it.
    expect((await killed.collection('deliveries').get()).size).toBe(1_200 + 1 + 1);

    const resumed = await migrate(killed);
    const uninterrupted = await migrate(whole);

    expect(uninterrupted).toMatchObject({ dayDocuments: 2, deliveries: 1_201, skippedExisting: 0 });
    expect(resumed).toMatchObject({ dayDocuments: 1, deliveries: 0, skippedExisting: 1_200 });
    const migrated = await contents(killed);
    expect(Object.keys(migrated)).toHaveLength(1_201);
    expect(migrated['uid-cid_2026-11-30']).toBeUndefined();
    expect(migrated['uid-cid_rss_01199']).toMatchObject({ status: 'queued', score: 99, expireAt: EXPIRE });
    expect(migrated).toEqual(await contents(whole));
  });

  it('a day document changed by an old instance after it was read is read again, not deleted with its change', async () => {
    const db = freshStore();
    await seedDayDocument(db, 'uid-eve', '2026-11-30', [old('rss_e1')]);
    // Between the walk's read and the commit, an old instance still running adds a delivery to the day document.
    const racer: MigrationFailpoint = async (point) => {
      if (point === 'before-batch-commit')
        await db
          .collection('deliveries')
          .doc('uid-eve_2026-11-30')
          .update({ 'deliveries.rss_e2': old('rss_e2', { score: 33 }) });
    };

    const report = await migrate(db, { failpoint: racer });

    expect(report).toMatchObject({ dayDocuments: 1, deliveries: 2, skippedExisting: 0 });
    const stored = await contents(db);
    expect(Object.keys(stored).sort()).toEqual(['uid-eve_rss_e1', 'uid-eve_rss_e2']);
    expect(stored['uid-eve_rss_e2']).toMatchObject({ score: 33, status: 'queued' });
  });

  it('leaves a document with a day that does not read as a day document, and names it', async () => {
    const db = freshStore();
    await db.collection('deliveries').doc('uid-fay_2026-11-30').set({ day: '2026-11-30', deliveries: {} });
    await seedDayDocument(db, 'uid-gus', '2026-11-30', [old('rss_g1')]);

    const report = await migrate(db);

    expect(report).toMatchObject({ dayDocuments: 1, deliveries: 1, unreadable: ['uid-fay_2026-11-30'] });
    expect((await db.collection('deliveries').doc('uid-fay_2026-11-30').get()).exists).toBe(true);
  });
});
