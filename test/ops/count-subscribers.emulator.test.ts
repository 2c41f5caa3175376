import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countSubscribers } from '../../lib/ops/read-status';
import { instrumentFirestore } from '../../scripts/bench/firestore-counter';
import { createHarness, type Harness } from '../support/harness';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

describe('the ops page counts subscribers by status', () => {
  it('by count() aggregation: four queries, one read each, whatever the number of users', async () => {
    const statuses = { active: 5, pending: 3, paused: 2, unsubscribed: 4 } as const;
    let n = 0;
    for (const [status, count] of Object.entries(statuses)) {
      for (let i = 0; i < count; i++) {
        const uid = await h.subscribe({ email: `s${n++}@example.com`, keywords: ['react'] });
        if (status !== 'active') await h.db.collection('users').doc(uid).update({ status });
      }
    }
    const counter = instrumentFirestore();
    try {
      expect(await countSubscribers(h.db)).toEqual(statuses);
      // One read per 1,000 counted, per status: no user document is read.
      expect(counter.snapshot().reads).toBe(4);
    } finally {
      counter.restore();
    }
  });

  it('an empty store counts zeroes', async () => {
    expect(await countSubscribers(h.db)).toEqual({ active: 0, pending: 0, paused: 0, unsubscribed: 0 });
  });
});
