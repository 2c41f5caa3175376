import { FieldValue, type DocumentReference } from 'firebase-admin/firestore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUARDED_UPDATE_MAX_TRIES, GuardedUpdateExhausted, guardedUpdate } from '../../lib/store/guarded-update';
import { isAlreadyExists } from '../../lib/store/firestore-errors';
import { createHarness, type Harness } from '../support/harness';
import { barrier } from '../support/deferred';

/**
 * The read-modify-write every subscriber change goes through: N writers on one document at once,
 * each deciding on what it read. With the guard, each lands exactly once (a loser decides again on
 * the winner's version); without it, the writers overwrite each other and updates are lost.
 */

let h: Harness;
let n = 0;

beforeAll(async () => {
  h = await createHarness();
  // The client's first request opens its connection; no test should time that.
  await h.db.collection('guardedUpdateTest').doc('warm-up').get();
});
afterAll(async () => h.close());

/** A fresh counter document per test. */
async function counter(): Promise<DocumentReference> {
  const ref = h.db.collection('guardedUpdateTest').doc(`counter-${++n}`);
  await ref.create({ count: 0, landed: [] });
  return ref;
}

const WRITERS = 8;

describe('guardedUpdate', () => {
  it(`lands ${WRITERS} concurrent increments exactly once each, all of them having read the same version first`, async () => {
    const ref = await counter();
    const allRead = barrier(WRITERS);
    const losses: number[] = [];
    const results = await Promise.all(
      Array.from({ length: WRITERS }, (_, writer) =>
        guardedUpdate(
          ref,
          async (snap, attempt) => {
            // First try: wait until every writer has read the same version, so all but one must lose.
            if (attempt === 1) await allRead();
            const count = snap.get('count') as number;
            return { update: { count: count + 1, landed: [...(snap.get('landed') as number[]), writer] }, result: { writer, attempt } };
          },
          { onLost: () => losses.push(writer) },
        ),
      ),
    );
    const final = (await ref.get()).data()!;
    expect(final.count).toBe(WRITERS);
    // Each writer's increment is there once: none lost, none doubled.
    expect([...final.landed].sort((a: number, b: number) => a - b)).toEqual(Array.from({ length: WRITERS }, (_, i) => i));
    // The first round had one winner; every other writer lost at least once and decided again.
    expect(results.filter((r) => r.attempt === 1)).toHaveLength(1);
    expect(new Set(losses).size).toBe(WRITERS - 1);
    expect(Math.max(...results.map((r) => r.attempt))).toBeLessThanOrEqual(WRITERS);
  });

  it('the same increments as a naive read-then-write lose updates', async () => {
    const ref = await counter();
    const allRead = barrier(WRITERS);
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        const snap = await ref.get();
        await allRead();
        await ref.update({ count: (snap.get('count') as number) + 1, landed: [...(snap.get('landed') as number[]), writer] });
      }),
    );
    const final = (await ref.get()).data()!;
    // Every writer read 0 and wrote 1: seven of the eight increments are gone.
    expect(final.count).toBe(1);
    expect(final.landed).toHaveLength(1);
  });

  it('gives up after the cap with GuardedUpdateExhausted, having written nothing of its own', async () => {
    const ref = await counter();
    let reads = 0;
    const attempt = guardedUpdate(
      ref,
      async (snap) => {
        reads += 1;
        // Someone else writes between every read and our write.
        await ref.update({ count: FieldValue.increment(100) });
        return { update: { count: (snap.get('count') as number) + 1 }, result: 'never' };
      },
      { maxTries: 3, action: 'counting' },
    );
    const error = await attempt.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardedUpdateExhausted);
    expect(error).toMatchObject({ path: ref.path, tries: 3 });
    expect((error as Error).message).toBe(`${ref.path} kept changing while counting (3 tries); try again`);
    expect(reads).toBe(3);
    expect((await ref.get()).get('count')).toBe(300);
  });

  it(`has one default cap, ${GUARDED_UPDATE_MAX_TRIES} tries`, async () => {
    const ref = await counter();
    let reads = 0;
    const error = await guardedUpdate(ref, async (snap) => {
      reads += 1;
      await ref.update({ count: FieldValue.increment(1) });
      return { update: { count: (snap.get('count') as number) + 1 }, result: null };
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardedUpdateExhausted);
    expect(reads).toBe(GUARDED_UPDATE_MAX_TRIES);
  });

  it('answers `done` without writing, and refuses to update a document that was not there', async () => {
    const ref = await counter();
    const before = (await ref.get()).updateTime!;
    expect(await guardedUpdate(ref, (snap) => ({ done: snap.get('count') as number }))).toBe(0);
    expect((await ref.get()).updateTime!.isEqual(before)).toBe(true);

    const missing = h.db.collection('guardedUpdateTest').doc('missing');
    await expect(guardedUpdate(missing, () => ({ update: { count: 1 }, result: null }))).rejects.toThrow(/did not exist when read/);
    expect((await missing.get()).exists).toBe(false);
  });

  it('creates a missing document with its alongside writes, all or nothing; a lost create decides again on the winner', async () => {
    const ref = h.db.collection('guardedUpdateTest').doc(`created-${++n}`);
    const side = h.db.collection('guardedUpdateTest').doc(`side-${n}`);
    const lost: boolean[] = [];
    const result = await guardedUpdate(
      ref,
      async (snap, attempt) => {
        if (attempt === 1) await ref.create({ count: 10, landed: [] }); // another writer gets there first
        if (!snap.exists)
          return { create: { count: 1 }, alongside: (batch) => void batch.create(side, { from: 'create' }), result: 'created' };
        return {
          update: { count: (snap.get('count') as number) + 1 },
          alongside: (batch) => void batch.create(side, { from: 'update' }),
          result: 'updated',
        };
      },
      { onLost: (error) => lost.push(isAlreadyExists(error)) },
    );
    expect(result).toBe('updated');
    expect(lost).toEqual([true]);
    expect((await ref.get()).get('count')).toBe(11);
    // The lost attempt's alongside write went with it; the winning attempt's landed.
    expect((await side.get()).get('from')).toBe('update');
  });

  it('deletes only the version read: a delete that lost to a write decides again on it', async () => {
    const ref = await counter();
    const seen: number[] = [];
    const result = await guardedUpdate(ref, async (snap, attempt) => {
      seen.push(snap.get('count') as number);
      if (attempt === 1) await ref.update({ count: 5 }); // a change lands between our read and our delete
      return { delete: true, result: 'deleted' };
    });
    expect(result).toBe('deleted');
    expect(seen).toEqual([0, 5]);
    expect((await ref.get()).exists).toBe(false);
  });

  it('passes any other error through at once', async () => {
    const ref = await counter();
    let reads = 0;
    const error = await guardedUpdate(ref, () => {
      reads += 1;
      // A field path Firestore refuses: INVALID_ARGUMENT, not a lost race.
      return { update: { '': 1 }, result: null };
    }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(GuardedUpdateExhausted);
    expect(reads).toBe(1);
  });
});
