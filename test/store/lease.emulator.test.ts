import type { DocumentReference, DocumentSnapshot, Timestamp } from 'firebase-admin/firestore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitHolders, releaseIfOurs, takeLease, takeOrAwait, writeHeld, type LeaseClock, type LeaseLook } from '../../lib/store/lease';
import { toDate } from '../../lib/store/timestamps';
import { createHarness, type Harness } from '../support/harness';
import { barrier } from '../support/deferred';

/**
 * The one lease every mechanism of Scout takes (the scan lock, an outbox row, a verdict claim, a
 * token refresh), tested on a document of its own: owner and `until`, plus a `result` its holder
 * leaves. Time is a fake clock that only `sleep` moves: nothing here waits for real.
 */

let h: Harness;
let n = 0;

beforeAll(async () => {
  h = await createHarness();
  // The client's first request opens its connection; no test should time that.
  await h.db.collection('leaseTest').doc('warm-up').get();
});
afterAll(async () => h.close());

const T0 = new Date('2026-12-01T08:00:00Z');
const TTL_MS = 60_000;

/** A clock at T0 that moves only when someone sleeps; `onSleep` runs during each sleep (a holder's work). */
function fakeClock(onSleep: (now: Date) => Promise<void> = async () => undefined): LeaseClock & { sleeps: number } {
  let now = T0.getTime();
  const clock = {
    sleeps: 0,
    now: () => new Date(now),
    sleep: async (ms: number) => {
      clock.sleeps += 1;
      now += ms;
      await onSleep(new Date(now));
    },
  };
  return clock;
}

const freshRef = () => h.db.collection('leaseTest').doc(`lease-${++n}`);

/** Free, expired, or held; done when its holder left a result. */
function look(owner: string, now: Date) {
  return (snap: DocumentSnapshot): LeaseLook<string | null> => {
    const result = snap.get('result') as string | undefined;
    if (result) return { done: result };
    const until = toDate(snap.get('until'));
    if (snap.exists && until && until > now) return { held: snap.get('owner') as string };
    return { take: { owner, until: new Date(now.getTime() + TTL_MS), result: null }, as: owner };
  };
}

const TAKERS = 8;

async function raceFor(ref: DocumentReference, now: Date) {
  const allRead = barrier(TAKERS);
  return Promise.all(
    Array.from({ length: TAKERS }, (_, i) =>
      takeLease(ref, async (snap) => {
        await allRead();
        return look(`taker-${i}`, now)(snap);
      }),
    ),
  );
}

describe('the lease', () => {
  it(`${TAKERS} takers of a free lease, all having read it free: exactly one wins (a naive read-then-write lets every one "win")`, async () => {
    const ref = freshRef();
    const outcomes = await raceFor(ref, T0);
    const winners = outcomes.filter((o) => 'taken' in o);
    expect(winners).toHaveLength(1);
    expect(outcomes.filter((o) => 'lost' in o)).toHaveLength(TAKERS - 1);
    expect((await ref.get()).get('owner')).toBe(winners[0].as);
  });

  it(`${TAKERS} takers of an expired lease, all having read it expired: exactly one takes it over`, async () => {
    const ref = freshRef();
    await ref.create({ owner: 'dead-run', until: T0, result: null });
    const outcomes = await raceFor(ref, new Date(T0.getTime() + 1));
    expect(outcomes.filter((o) => 'taken' in o)).toHaveLength(1);
    expect((await ref.get()).get('owner')).not.toBe('dead-run');
  });

  it('the same race as a naive read-then-write: every taker believes it won, and the last write stands', async () => {
    const ref = freshRef();
    const allRead = barrier(TAKERS);
    const believers = await Promise.all(
      Array.from({ length: TAKERS }, async (_, i) => {
        const snap = await ref.get();
        await allRead();
        if (snap.exists) return false;
        await ref.set({ owner: `taker-${i}`, until: new Date(T0.getTime() + TTL_MS) });
        return true;
      }),
    );
    expect(believers.filter(Boolean).length).toBe(TAKERS);
  });

  it('a live lease is left to its holder; an expired one is taken over', async () => {
    const ref = freshRef();
    expect(await takeLease(ref, look('first', T0))).toMatchObject({ as: 'first' });
    expect(await takeLease(ref, look('second', new Date(T0.getTime() + TTL_MS - 1)))).toEqual({ held: 'first' });
    expect(await takeLease(ref, look('second', new Date(T0.getTime() + TTL_MS)))).toMatchObject({ as: 'second' });
    expect((await ref.get()).get('owner')).toBe('second');
  });

  it('the old holder renews after a takeover: refused (fenced), and the new holder keeps the lease', async () => {
    const ref = freshRef();
    const first = await takeLease(ref, look('first', T0));
    const later = new Date(T0.getTime() + TTL_MS + 1);
    const second = await takeLease(ref, look('second', later));
    if (!('taken' in first) || !('taken' in second)) throw new Error('both takes should land');
    expect(await writeHeld(ref, first.taken, { until: new Date(later.getTime() + TTL_MS) })).toBeNull();
    expect(await writeHeld(ref, first.taken, { result: 'the zombie' })).toBeNull();
    expect(await writeHeld(ref, first.taken, null)).toBeNull();
    expect((await ref.get()).data()).toMatchObject({ owner: 'second', result: null });
    // The holder's own renewal lands, and its next write is fenced by the version that renewal gave.
    const renewed = await writeHeld(ref, second.taken, { until: new Date(later.getTime() + 2 * TTL_MS) });
    expect(renewed).not.toBeNull();
    expect(await writeHeld(ref, second.taken, { result: 'stale version' })).toBeNull();
    expect(await writeHeld(ref, renewed!, { result: 'done' })).not.toBeNull();
  });

  it('a release by a non-holder is refused and leaves the lease; the holder releases it', async () => {
    const ref = freshRef();
    await takeLease(ref, look('holder', T0));
    const ownedBy = (owner: string) => (snap: DocumentSnapshot) => snap.get('owner') === owner;
    expect(await releaseIfOurs(ref, ownedBy('someone-else'))).toBe(false);
    expect((await ref.get()).get('owner')).toBe('holder');
    expect(await releaseIfOurs(ref, ownedBy('holder'))).toBe(true);
    expect((await ref.get()).exists).toBe(false);
    expect(await releaseIfOurs(ref, ownedBy('holder'))).toBe(false);
  });

  it("a waiter gets the holder's result, written while it waited, without taking the lease", async () => {
    const ref = freshRef();
    const held = await takeLease(ref, look('holder', T0));
    if (!('taken' in held)) throw new Error('the holder should take it');
    // The holder finishes during the waiter's third sleep, well inside its lease.
    const clock = fakeClock(async () => {
      if (clock.sleeps === 3) await writeHeld(ref, held.taken, { result: 'the answer', until: null });
    });
    const outcome = await takeOrAwait(ref, (snap) => look('waiter', clock.now())(snap), {
      clock,
      pollMs: 1_000,
      until: new Date(T0.getTime() + TTL_MS * 10),
      maxLost: 10,
    });
    expect(outcome).toEqual({ done: 'the answer' });
    expect(clock.sleeps).toBe(3);
    expect((await ref.get()).get('owner')).toBe('holder');
  });

  it('a waiter takes the lease over when its holder dies without a result, once the lease expires', async () => {
    const ref = freshRef();
    await takeLease(ref, look('dies', T0));
    const clock = fakeClock();
    const outcome = await takeOrAwait(ref, (snap) => look('waiter', clock.now())(snap), {
      clock,
      pollMs: 10_000,
      until: new Date(T0.getTime() + TTL_MS * 10),
      maxLost: 10,
    });
    expect(outcome).toMatchObject({ as: 'waiter' });
    // Six sleeps of 10 s reach the 60 s lease's end: not one sooner.
    expect(clock.sleeps).toBe(6);
    expect((await ref.get()).get('owner')).toBe('waiter');
  });

  it('a waiter gives up at its deadline while the holder is still live, leaving the lease', async () => {
    const ref = freshRef();
    await takeLease(ref, look('slow', T0));
    const clock = fakeClock();
    const outcome = await takeOrAwait(ref, (snap) => look('waiter', clock.now())(snap), {
      clock,
      pollMs: 1_000,
      until: new Date(T0.getTime() + 5_000),
      maxLost: 10,
    });
    expect(outcome).toEqual({ held: 'slow' });
    expect((await ref.get()).get('owner')).toBe('slow');
  });

  it('many leases awaited together: settled one by one as their holders write, the rest still held at the deadline', async () => {
    const refs = [freshRef(), freshRef(), freshRef()];
    const versions: Timestamp[] = [];
    for (const ref of refs) {
      const taken = await takeLease(ref, look('holder', T0));
      if (!('taken' in taken)) throw new Error('the holder should take it');
      versions.push(taken.taken);
    }
    const clock = fakeClock(async () => {
      if (clock.sleeps === 1) await writeHeld(refs[0], versions[0], { result: 'a' });
      if (clock.sleeps === 2) await writeHeld(refs[1], versions[1], { result: 'b' });
    });
    const reads: number[] = [];
    const results = new Map<string, string>();
    const stillHeld = await awaitHolders(
      refs.map((ref) => ref.id),
      {
        read: async (ids) => {
          reads.push(ids.length);
          const snaps = await h.db.getAll(...ids.map((id) => h.db.collection('leaseTest').doc(id)));
          return snaps.map((snap): [string, DocumentSnapshot] => [snap.id, snap]);
        },
        settle: (id, snap) => {
          const result = snap.get('result') as string | null;
          if (result) results.set(id, result);
          return result !== null;
        },
        clock,
        pollMs: 1_000,
        until: new Date(T0.getTime() + 4_000),
      },
    );
    expect(Object.fromEntries(results)).toEqual({ [refs[0].id]: 'a', [refs[1].id]: 'b' });
    expect(stillHeld).toEqual([refs[2].id]);
    // One read per poll, of only what was still held.
    expect(reads).toEqual([3, 2, 1, 1]);
  });
});
