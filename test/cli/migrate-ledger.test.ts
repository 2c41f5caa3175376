import { Timestamp } from 'firebase-admin/firestore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliFixture, type CliFixture } from './cli-fixture';

let fx: CliFixture;
beforeEach(() => {
  fx = createCliFixture();
});
afterEach(() => fx.close());

/** A day document as the first ledger wrote it: deliveries/{uid}_{day} with its deliveries in a map. */
async function seedDayDocument(uid: string, day: string, jobIds: string[]) {
  const createdAt = Timestamp.fromDate(new Date(`${day}T06:00:00Z`));
  await fx.db
    .collection('deliveries')
    .doc(`${uid}_${day}`)
    .set({
      uid,
      day,
      deliveries: Object.fromEntries(
        jobIds.map((jobId) => [
          jobId,
          {
            jobId,
            mode: 'daily',
            status: 'queued',
            score: 70,
            reasons: [],
            emailKey: null,
            digestDate: day,
            reason: null,
            runId: 'run-old',
            createdAt,
          },
        ]),
      ),
      pendingDigest: day,
      expireAt: Timestamp.fromDate(new Date('2026-12-30T00:00:00Z')),
    });
}

const ids = async () => (await fx.db.collection('deliveries').get()).docs.map((d) => d.id).sort();

describe('scout migrate-ledger', () => {
  it('--dry-run prints its count and writes nothing; the run prints progress per query and migrates; a second run finds nothing, exit 0 each', async () => {
    await seedDayDocument('uid-ada', '2026-11-29', ['rss_a1', 'rss_a2']);
    await seedDayDocument('uid-ada', '2026-11-30', ['rss_a3']);
    await seedDayDocument('uid-bea', '2026-11-30', ['rss_b1']);

    const dry = await fx.cli(['migrate-ledger', '--dry-run', '--batch-size', '2']);
    expect(dry).toMatchObject({ code: 0, err: [] });
    expect(dry.out).toEqual([
      'counted so far: 2 day documents, 3 delivery documents to create, 0 already there',
      'counted so far: 3 day documents, 4 delivery documents to create, 0 already there',
      'dry run, nothing written: would migrate 3 day documents, 4 delivery documents to create, 0 already there',
    ]);
    expect(await ids()).toEqual(['uid-ada_2026-11-29', 'uid-ada_2026-11-30', 'uid-bea_2026-11-30']);
    expect((await fx.db.collection('cursors').get()).size).toBe(0);

    const run = await fx.cli(['migrate-ledger', '--batch-size', '2']);
    expect(run).toMatchObject({ code: 0, err: [] });
    expect(run.out).toEqual([
      'migrated so far: 2 day documents, 3 delivery documents created, 0 already there',
      'migrated so far: 3 day documents, 4 delivery documents created, 0 already there',
      'done: 3 day documents, 4 delivery documents created, 0 already there',
    ]);
    expect(await ids()).toEqual(['uid-ada_rss_a1', 'uid-ada_rss_a2', 'uid-ada_rss_a3', 'uid-bea_rss_b1']);

    expect(await fx.cli(['migrate-ledger'])).toMatchObject({ code: 0, out: ['nothing to migrate: no day document left'] });
  });

  it('names a document with a day that does not read as a day document, leaves it, exit 1', async () => {
    await fx.db.collection('deliveries').doc('uid-cid_2026-11-30').set({ day: '2026-11-30', deliveries: {} });

    const run = await fx.cli(['migrate-ledger']);

    expect(run.code).toBe(1);
    expect(run.out.at(-1)).toBe('left in place, not a readable day document (no uid or no deliveries map): deliveries/uid-cid_2026-11-30');
    expect(await ids()).toEqual(['uid-cid_2026-11-30']);
  });

  it.each([['--batch-size', '0'], ['--batch-size', '501'], ['--batch-size', 'x'], ['extra'], ['--force']])(
    '%j: refused before the store is opened, exit 2',
    async (...argv) => {
      const run = await fx.cli(['migrate-ledger', ...argv]);
      expect(run).toMatchObject({ code: 2, opened: false, out: [] });
    },
  );

  it('--help describes it and the top-level help lists it', async () => {
    expect((await fx.cli(['migrate-ledger', '--help'])).out[0]).toBe('Usage: scout migrate-ledger [--dry-run] [--batch-size N]');
    expect((await fx.cli(['--help'])).out.join('\n')).toMatch(/migrate-ledger\s+turn day documents into per-pair documents/);
  });
});
