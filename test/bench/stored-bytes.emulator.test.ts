import { afterEach, describe, expect, it } from 'vitest';
import { measureStoredBytes } from '../../scripts/bench/stored-bytes';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

let h: Harness;
afterEach(async () => h?.close());

describe('what a day leaves in the store, sized for the bill', () => {
  it('sizes every document with its index entries, by the unit of work that left it, with the days its TTL keeps it', async () => {
    h = await createHarness({ RETENTION_DAYS: '30' });
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    await h.subscribe({ email: 'bea@example.com', keywords: ['react'], mode: 'daily' });
    h.serveFeed(postingsAbout('react', 3, { at: new Date('2026-11-30T06:00:00Z') }));
    await h.run({ now: '2026-11-30T06:00:00Z' });
    await h.run({ now: '2026-11-30T08:05:00Z' });

    const stored = await measureStoredBytes(h.db);
    expect(stored.delivery.units).toBe(6);
    expect(stored.alert.units).toBe(1);
    expect(stored.digest.units).toBe(1);
    expect(stored.posting.units).toBe(3);
    expect(stored.subscriber.units).toBe(2);
    expect(stored.run.units).toBe(2);
    for (const kind of ['delivery', 'alert', 'digest', 'posting', 'run'] as const) {
      expect(stored[kind].bytes, kind).toBeGreaterThan(stored[kind].indexBytes);
      expect(stored[kind].indexBytes, kind).toBeGreaterThan(0);
    }
    expect(stored.delivery.keptDays).toBeCloseTo(30, 0);
    expect(stored.subscriber.keptDays).toBeNull();
    // A sent digest keeps its payload; a sent alert does not: the digest row is the bigger one.
    expect(stored.digest.bytes).toBeGreaterThan(stored.alert.bytes);
  });

  it('a collection larger than the sample is sized from the sample, scaled by its count', async () => {
    h = await createHarness({ RETENTION_DAYS: '30' });
    for (const name of ['ada', 'bea', 'cid', 'dee']) await h.subscribe({ email: `${name}@example.com`, keywords: ['react'] });
    h.serveFeed(postingsAbout('react', 5, { at: new Date('2026-11-30T06:00:00Z') }));
    await h.run({ now: '2026-11-30T06:00:00Z' });

    const whole = await measureStoredBytes(h.db);
    const sampled = await measureStoredBytes(h.db, { sample: 4, page: 2 });
    expect(whole.delivery.units).toBe(20);
    expect(sampled.delivery.units).toBe(20);
    // Deliveries differ only in their ids' lengths here: the scaled bytes are within a few per cent.
    expect(sampled.delivery.bytes / whole.delivery.bytes).toBeGreaterThan(0.95);
    expect(sampled.delivery.bytes / whole.delivery.bytes).toBeLessThan(1.05);
  });
});
