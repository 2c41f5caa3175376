import { Timestamp } from 'firebase-admin/firestore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scorePosting } from '../../lib/matching/score-posting';
import { decodeProfile, matchIndexShardOf, matchIndexShardRef } from '../../lib/subscribers/match-index';
import { DEFAULT_MATCH_INDEX_SHARDS as K } from '../../lib/subscribers/match-index-layout';
import { subscriberId, subscribersCollection } from '../../lib/subscribers/subscriber';
import { createCliFixture, type CliFixture } from '../cli/cli-fixture';

let fx: CliFixture;
beforeEach(() => {
  fx = createCliFixture();
});
afterEach(() => fx.close());

const SAVED = Timestamp.fromDate(new Date('2026-10-01T12:00:00Z'));

/** A users/ document exactly as the code before per-kind minimums wrote it: one `minBudget`, no `minPay`. */
const oldShape = (email: string, minBudget: number | null | undefined, mode = 'instant') => ({
  email,
  keywords: ['react'],
  excludes: [],
  ...(minBudget === undefined ? {} : { minBudget }),
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

/** Its match index entry as that code packed it: format 1, the budget floor a number or null. */
const oldEntry = (minBudget: number | null) => JSON.stringify([1, ['react'], [], minBudget, 'i', 4, 60]);

const ADA = 'ada@example.com';
const BOB = 'bob@example.com';
const CY = 'cy@example.com';
const DEE = 'dee@example.com';

async function seedOldShapes() {
  const users = fx.db.collection('users');
  await users.doc(subscriberId(ADA)).set(oldShape(ADA, 500));
  await users.doc(subscriberId(BOB)).set(oldShape(BOB, null));
  await users.doc(subscriberId(CY)).set(oldShape(CY, undefined));
  // Saved by the current code (minPay) while an old instance still wrote minBudget beside it.
  await users.doc(subscriberId(DEE)).set({
    ...oldShape(DEE, 300),
    minPay: { fixed: null, hourly: { amount: 50, currency: 'EUR' }, yearly: null },
  });
  for (const [email, minBudget] of [
    [ADA, 500],
    [BOB, null],
    [CY, null],
  ] as const) {
    const uid = subscriberId(email);
    await matchIndexShardRef(fx.db, matchIndexShardOf(uid, K), K).set({ profiles: { [uid]: oldEntry(minBudget) } }, { merge: true });
  }
}

const rawUser = async (email: string) => (await fx.db.collection('users').doc(subscriberId(email)).get()).data()!;
const indexEntry = async (email: string) => {
  const uid = subscriberId(email);
  const shard = await matchIndexShardRef(fx.db, matchIndexShardOf(uid, K), K).get();
  return (shard.get('profiles') as Record<string, string | null> | undefined)?.[uid];
};
const snapshot = async () =>
  Object.fromEntries(
    (await fx.db.collection('users').get()).docs.map((d) => [d.id, { data: d.data(), updated: d.updateTime.toMillis() }] as const),
  );

describe('scout users migrate-min-pay', () => {
  it('before the migration, an old document reads and matches as before: its minBudget is the fixed minimum in USD', async () => {
    await seedOldShapes();
    const ada = (await subscribersCollection(fx.db).doc(subscriberId(ADA)).get()).data()!;
    expect(ada.minPay).toEqual({ fixed: { amount: 500, currency: 'USD' }, hourly: null, yearly: null });
    expect(decodeProfile(subscriberId(ADA), (await indexEntry(ADA))!)?.minPay).toEqual(ada.minPay);
    const posting = (amount: number) => ({
      id: 'src_1',
      source: 'src',
      guid: null,
      title: 'React',
      url: null,
      description: '',
      budget: { amount, currency: 'USD', kind: 'fixed' as const },
      skills: [],
      publishedAt: null,
    });
    expect(scorePosting(ada, posting(400)).matched).toBe(false);
    expect(scorePosting(ada, posting(600)).matched).toBe(true);
  });

  it('turns minBudget into minPay.fixed in USD and removes it; the index entry, profileVersion and updatedAt stay', async () => {
    await seedOldShapes();
    const entriesBefore = await Promise.all([ADA, BOB, CY].map(indexEntry));

    const run = await fx.cli(['users', 'migrate-min-pay']);

    expect(run.code).toBe(0);
    expect(run.out.at(-1)).toBe('done: 3 changed (3 subscribers held minBudget)');
    const ada = await rawUser(ADA);
    expect(ada).not.toHaveProperty('minBudget');
    expect(ada).toMatchObject({
      minPay: { fixed: { amount: 500, currency: 'USD' }, hourly: null, yearly: null },
      profileVersion: 4,
      updatedAt: SAVED,
    });
    const bob = await rawUser(BOB);
    expect(bob).not.toHaveProperty('minBudget');
    expect(bob.minPay).toEqual({ fixed: null, hourly: null, yearly: null });
    // Never held one: left as it is (it reads as no minimum).
    expect(await rawUser(CY)).not.toHaveProperty('minPay');
    // minPay was written by the current code: it stands; the stale minBudget goes.
    const dee = await rawUser(DEE);
    expect(dee).not.toHaveProperty('minBudget');
    expect(dee.minPay).toEqual({ fixed: null, hourly: { amount: 50, currency: 'EUR' }, yearly: null });
    // A fixed minimum in USD packs exactly as minBudget did: an instance of the old code reads the same entry.
    expect(await Promise.all([ADA, BOB, CY].map(indexEntry))).toEqual(entriesBefore);
  });

  it('run twice, the second run changes nothing and reports 0 changed', async () => {
    await seedOldShapes();
    await fx.cli(['users', 'migrate-min-pay']);
    const before = await snapshot();

    const again = await fx.cli(['users', 'migrate-min-pay']);

    expect(again.code).toBe(0);
    expect(again.out).toEqual(['done: 0 changed (0 subscribers held minBudget)']);
    expect(await snapshot()).toEqual(before);
  });

  it('--dry-run counts and writes nothing', async () => {
    await seedOldShapes();
    const before = await snapshot();
    const run = await fx.cli(['users', 'migrate-min-pay', '--dry-run', '--batch-size', '1']);
    expect(run.out.at(-1)).toBe('dry run, nothing written: would rewrite 3 subscribers');
    expect(await snapshot()).toEqual(before);
  });

  it('walks every page: more subscribers than one query reads', async () => {
    await seedOldShapes();
    const run = await fx.cli(['users', 'migrate-min-pay', '--batch-size', '2']);
    expect(run.out.at(-1)).toBe('done: 3 changed (3 subscribers held minBudget)');
    expect((await fx.db.collection('users').orderBy('minBudget').get()).size).toBe(0);
  });
});
