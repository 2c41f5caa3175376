import { Timestamp } from 'firebase-admin/firestore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Posting } from '../../lib/feeds/posting';
import { matchPostings } from '../../lib/matching/match-postings';
import { migrateQueries } from '../../lib/subscribers/migrate-queries';
import { matchIndexShardRef, readActiveSubscribers } from '../../lib/subscribers/match-index';
import { DEFAULT_MATCH_INDEX_SHARDS as K } from '../../lib/subscribers/match-index-layout';
import { repairMatchIndex } from '../../lib/subscribers/repair-match-index';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { readCorpusPostings } from '../../scripts/bench/corpus-postings';
import { keywordSubscribers } from '../../scripts/bench/bench-vocabulary';
import { createCliFixture, type CliFixture } from '../cli/cli-fixture';

let fx: CliFixture;
beforeEach(() => {
  fx = createCliFixture();
});
afterEach(() => fx.close());

const SAVED = Timestamp.fromDate(new Date('2026-10-01T12:00:00Z'));

/** A users/ document exactly as the code before queries wrote it: keyword lists, no `query`. */
const oldShape = (email: string, keywords: string[], excludes: string[], mode = 'instant') => ({
  email,
  keywords,
  excludes,
  minPay: { fixed: null, hourly: null, yearly: null },
  mode,
  about: '',
  profileVersion: 4,
  fitThreshold: 60,
  status: 'active',
  timezone: 'UTC',
  digestHour: null,
  weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  weeklyDay: 'mon',
  createdAt: SAVED,
  confirmedAt: SAVED,
  updatedAt: SAVED,
});

/** The largest lists a keyword subscription may hold: 25 keywords and 25 excludes of 60 characters, past a typed query's bounds. */
const LONGEST = {
  keywords: Array.from({ length: 25 }, (_, i) => `keyword ${i} ${'k'.repeat(60 - 11)}`.slice(0, 60)),
  excludes: Array.from({ length: 25 }, (_, i) => `exclude ${i} ${'e'.repeat(60 - 11)}`.slice(0, 60)),
};

async function seedOldShapes(count: number) {
  const users = fx.db.collection('users');
  const profiles = keywordSubscribers(count);
  const writes = profiles.map((p, i) =>
    users
      .doc(subscriberId(`sub${i}@example.com`))
      .set(oldShape(`sub${i}@example.com`, p.keywords, p.excludes, i % 3 ? 'instant' : 'daily')),
  );
  writes.push(users.doc(subscriberId('longest@example.com')).set(oldShape('longest@example.com', LONGEST.keywords, LONGEST.excludes)));
  // Written by the current code: a query of their own, which the migration must leave as it is.
  writes.push(
    users
      .doc(subscriberId('wrote@example.com'))
      .set({ ...oldShape('wrote@example.com', ['react', 'vue'], []), query: 'title:(react OR vue) remote:yes' }),
  );
  await Promise.all(writes);
  // The index as the code before queries built it.
  await repairMatchIndex(fx.db, { now: new Date('2026-10-02T00:00:00Z') });
}

const rawUsers = async () =>
  Object.fromEntries(
    (await fx.db.collection('users').get()).docs.map((d) => [d.id, { data: d.data(), updated: d.updateTime.toMillis() }] as const),
  );
const shards = async () =>
  Promise.all(Array.from({ length: K }, async (_, k) => (await matchIndexShardRef(fx.db, k, K).get()).get('profiles') as unknown));

/** Every (subscriber, posting, score, near miss) a run would find today, from the index as runs read it. */
async function whatTheyReceive(postings: Posting[]) {
  const { subscribers, from } = await readActiveSubscribers(fx.db, undefined);
  expect(from).toBe('index');
  return matchPostings(postings, subscribers, { keepNearMisses: () => true })
    .map((c) => `${c.subscriber.id} ${c.posting.id} ${c.score} ${c.nearMiss ?? ''} ${c.reasons.join('|')}`)
    .sort();
}

describe('scout users migrate-queries', () => {
  it('gives every keyword subscription its canonical query, and nobody receives anything different', async () => {
    await seedOldShapes(60);
    const postings = (await readCorpusPostings()).flatMap((file) => file.postings);
    const before = await whatTheyReceive(postings);
    const indexBefore = await shards();
    expect(before.length).toBeGreaterThan(100);

    const run = await fx.cli(['users', 'migrate-queries']);

    expect(run.code).toBe(0);
    expect(run.out.at(-1)).toBe('done: 61 changed (62 subscribers read)');
    const users = await rawUsers();
    expect(users[subscriberId('sub0@example.com')].data.query).toMatch(/\S/);
    expect(users[subscriberId('longest@example.com')].data.query).toBe(
      [LONGEST.keywords.map((k) => `"${k}"`).join(' OR '), ...LONGEST.excludes.map((e) => `-"${e}"`)].join(' '),
    );
    // Past a typed query's 500 characters, and still read as exactly its lists.
    expect((users[subscriberId('longest@example.com')].data.query as string).length).toBeGreaterThan(3_000);
    expect(users[subscriberId('wrote@example.com')].data.query).toBe('title:(react OR vue) remote:yes');
    for (const { data } of Object.values(users)) expect(data).toMatchObject({ profileVersion: 4, updatedAt: SAVED });
    // The entries pack the same: an index write for nobody.
    expect(await shards()).toEqual(indexBefore);
    expect(await whatTheyReceive(postings)).toEqual(before);
  });

  it('run twice, the second run changes nothing and reports 0 changed', async () => {
    await seedOldShapes(12);
    await fx.cli(['users', 'migrate-queries']);
    const before = await rawUsers();

    const again = await fx.cli(['users', 'migrate-queries', '--batch-size', '5']);

    expect(again.out.at(-1)).toBe('done: 0 changed (14 subscribers read)');
    expect(await rawUsers()).toEqual(before);
  });

  it('four runs at once give each subscriber its query exactly once between them', async () => {
    await seedOldShapes(20);
    const reports = await Promise.all(Array.from({ length: 4 }, () => migrateQueries(fx.db, { dryRun: false, batchSize: 7 })));
    expect(reports.reduce((sum, r) => sum + r.changed, 0)).toBe(21);
    const again = await migrateQueries(fx.db, { dryRun: false });
    expect(again.changed).toBe(0);
  });

  it("resumed from a checkpoint (scout migrate), it goes on after the last uid done and reports each page's last uid", async () => {
    await seedOldShapes(9);
    const uids = (await fx.db.collection('users').orderBy('__name__').get()).docs.map((d) => d.id);
    const checkpoints: string[] = [];
    const report = await migrateQueries(fx.db, {
      dryRun: false,
      batchSize: 4,
      resumeAfter: uids[4],
      onProgress: (_r, last) => checkpoints.push(last),
    });
    expect(report.read).toBe(uids.length - 5);
    const users = await rawUsers();
    expect(
      uids.filter(
        (uid) =>
          typeof users[uid].data.query === 'string' && users[uid].data.keywords.length > 0 && uid !== subscriberId('wrote@example.com'),
      ),
    ).toEqual(uids.slice(5).filter((uid) => uid !== subscriberId('wrote@example.com')));
    expect(checkpoints.at(-1)).toBe(uids.at(-1));
  });

  it('--dry-run counts and writes nothing', async () => {
    await seedOldShapes(5);
    const before = await rawUsers();
    const run = await fx.cli(['users', 'migrate-queries', '--dry-run', '--batch-size', '2']);
    expect(run.out.at(-1)).toBe('dry run, nothing written: would give 6 subscribers a query (7 read)');
    expect(await rawUsers()).toEqual(before);
  });

  it('a document without a query or a keyword is left as it is and counted', async () => {
    await fx.db
      .collection('users')
      .doc(subscriberId('empty@example.com'))
      .set(oldShape('empty@example.com', [], []));
    const run = await fx.cli(['users', 'migrate-queries']);
    expect(run.out.at(-1)).toBe('done: 0 changed (1 subscriber read; 1 subscriber without keywords left as they are)');
  });
});
