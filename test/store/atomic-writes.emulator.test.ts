import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitAtomicWrites } from '../../lib/store/atomic-writes';
import { createHarness, type Harness } from '../support/harness';

let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

describe('commitAtomicWrites', () => {
  it('packs large atomic writes into several commits, so a run of big emails never exceeds the 10 MiB request limit', async () => {
    // Each document stays under Firestore's 1 MiB; together they are over the 10 MiB a commit may carry.
    const big = 'x'.repeat(900_000);
    const writes = Array.from({ length: 12 }, (_, i) => ({
      size: 1,
      bytes: big.length,
      apply: (batch: FirebaseFirestore.WriteBatch) => batch.create(h.db.collection('emails').doc(`big-${i}`), { html: big }),
    }));
    expect(await commitAtomicWrites(h.db, writes)).toEqual(writes.map(() => true));
    expect((await h.db.collection('emails').get()).size).toBe(12);
  }, 60_000);
});
