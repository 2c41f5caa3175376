import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardOf, type Shard } from '../../lib/runtime/shard';
import { outboxCollection } from '../../lib/outbox/outbox-row';
import { createHarness, type Harness } from '../support/harness';
import { dispatchAt } from '../support/dispatch';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const NOW = '2026-11-30T06:00:00Z';
let h: Harness;
let subscribers: Map<string, string>;

beforeEach(async () => {
  h = await createHarness();
  subscribers = new Map();
  for (let i = 0; i < 10; i++) {
    const email = `dev${i}@example.com`;
    subscribers.set(email, await h.subscribe({ email, keywords: ['react'], mode: 'instant' }));
  }
  h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
  // A run refused for the provider's quota hands every alert it created back untried: ten pending rows.
  await h.setFaults({ quotaExceeded: 'daily' });
  await h.run({ now: NOW });
  await h.setFaults({});
  expect((await outboxCollection(h.db).where('status', '==', 'pending').get()).size).toBe(10);
});
afterEach(async () => h.close());

const dispatch = (input: { pendingPageSize: number; batchSize: number; shard?: Shard }) => dispatchAt(h, '2026-11-30T06:15:00Z', input);

describe('dispatching pending rows page by page', () => {
  it.each([
    ['batched', 100],
    ['one by one', 1],
  ])('walks every page of pending rows (%s): each email sent once, however small the page', async (_name, batchSize) => {
    const stats = await dispatch({ pendingPageSize: 3, batchSize });
    expect(stats.sent.alert).toBe(10);
    expect((await h.inbox()).map((m) => m.to[0]).sort()).toEqual([...subscribers.keys()].sort());
  });

  it("a shard walks past other shards' rows to reach its own on later pages", async () => {
    const shard = { index: 1, count: 2 };
    const own = [...subscribers].filter(([, uid]) => shardOf(uid, 2) === 1).map(([email]) => email);
    const stats = await dispatch({ pendingPageSize: 2, batchSize: 100, shard });
    expect(stats.sent.alert).toBe(own.length);
    expect((await h.inbox()).map((m) => m.to[0]).sort()).toEqual(own.sort());
  });
});
