import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InjectedCrash } from '../../lib/runtime/failpoints';
import { acquireLock } from '../../lib/cycle/lock';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const T0 = new Date('2026-11-30T06:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000).toISOString();
let h: Harness;

beforeEach(async () => {
  h = await createHarness({}, { LOCK_TTL_MS: 10 * 60_000 });
  await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
  h.serveFeed(postingsAbout('react', 2, { at: T0 }));
});
afterEach(async () => h.close());

describe('the scan lock', () => {
  it('a fresh lock held by another run makes the call skip without work', async () => {
    await h.db
      .collection('locks')
      .doc('scan')
      .set({ owner: 'other-run', ts: T0, expiresAt: new Date(T0.getTime() + 10 * 60_000) });
    const res = await h.cron({ now: at(1) });
    expect(res.body).toMatchObject({ skipped: 'previous run in flight', lockOwner: 'other-run' });
    expect((await h.db.collection('jobs').get()).size).toBe(0);
    expect(await h.inbox()).toHaveLength(0);
    expect((await h.db.collection('locks').doc('scan').get()).get('owner')).toBe('other-run');
  });

  it('an expired lock is taken over, and released by its new owner at the end', async () => {
    await h.db
      .collection('locks')
      .doc('scan')
      .set({ owner: 'dead-run', ts: T0, expiresAt: new Date(T0.getTime() + 10 * 60_000) });
    const res = await h.cron({ now: at(11) });
    expect(res.body.instantEmails).toBe(1);
    expect((await h.db.collection('locks').doc('scan').get()).exists).toBe(false);
  });

  it('a crashed holder heals by expiry: skipped within the TTL, taken over after it', async () => {
    // A process killed mid-run never reaches `finally`: its lock stays until it expires.
    const crash = async () => {
      throw new InjectedCrash('after-claim');
    };
    await h.db
      .collection('locks')
      .doc('scan')
      .set({ owner: 'killed-run', ts: T0, expiresAt: new Date(T0.getTime() + 10 * 60_000) });
    expect((await h.cron({ now: at(5) })).body.skipped).toBe('previous run in flight');
    const res = await h.cron({ now: at(10) }, { failpoint: crash });
    expect(res.status).toBe(500);
    // The crashing run released what it owned in `finally`; the next run carries on and sends once.
    const next = await h.cron({ now: at(12) });
    expect(next.body.instantEmails).toBe(1);
    expect(await h.inbox()).toHaveLength(1);
  });

  it('releasing never deletes a lock that a newer run took over', async () => {
    const first = await acquireLock(h.db, { name: 'scan', owner: 'slow-run', now: T0, ttlMs: 60_000 });
    expect(first.acquired).toBe(true);
    const second = await acquireLock(h.db, { name: 'scan', owner: 'new-run', now: new Date(T0.getTime() + 61_000), ttlMs: 60_000 });
    expect(second.acquired).toBe(true);
    if (first.acquired) await first.handle.release();
    expect((await h.db.collection('locks').doc('scan').get()).get('owner')).toBe('new-run');
  });

  it('8 callers racing for a free or expired lock: exactly one acquires it', async () => {
    for (const seed of [null, { owner: 'expired', ts: T0, expiresAt: T0 }]) {
      if (seed) await h.db.collection('locks').doc('race').set(seed);
      else await h.db.collection('locks').doc('race').delete();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          acquireLock(h.db, { name: 'race', owner: `run-${i}`, now: new Date(T0.getTime() + 1000), ttlMs: 60_000 }),
        ),
      );
      expect(results.filter((r) => r.acquired)).toHaveLength(1);
    }
  });
});
