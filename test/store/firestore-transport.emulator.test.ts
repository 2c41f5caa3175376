import { setLogFunction } from 'firebase-admin/firestore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlreadyExists, isLostPrecondition } from '../../lib/store/firestore-errors';
import { createHarness, type Harness } from '../support/harness';

/**
 * The ledger is refereed by two answers of the store: a create() on an id that exists fails with
 * ALREADY_EXISTS, and a write guarded by a stale lastUpdateTime fails with FAILED_PRECONDITION.
 * The app's client must hand both back promptly and as themselves.
 *
 * That rules out the Admin SDK's REST transport (`preferRest: true`, which Firebase sets for Cloud
 * Functions to spare a cold start loading gRPC): over REST, ALREADY_EXISTS arrives as HTTP 409,
 * which it shares with ABORTED, so the client retries the create() until its deadline instead of
 * losing (firebase/firebase-admin-node#2587, open); and FAILED_PRECONDITION arrives as HTTP 400,
 * read back as INVALID_ARGUMENT. Either would turn a lost race into a stuck or failed run.
 */

/** Settles within `ms` or fails naming what hung. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const settled = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

let h: Harness;
const log: string[] = [];

beforeAll(async () => {
  setLogFunction((line) => log.push(line));
  h = await createHarness();
});
afterAll(async () => {
  setLogFunction(null);
  await h.close();
});

describe("the app's Firestore client", () => {
  it('loses a create() on an existing id at once, with ALREADY_EXISTS', async () => {
    const ref = h.deps.db.collection('locks').doc('transport-create');
    await ref.create({ owner: 'first' });
    const error = await within(5_000, 'a create() on an existing id', settled(ref.create({ owner: 'second' })));
    expect(isAlreadyExists(error), String(error)).toBe(true);
    expect((await ref.get()).data()).toEqual({ owner: 'first' });
  });

  it('loses a write guarded by a stale version, with FAILED_PRECONDITION', async () => {
    const ref = h.deps.db.collection('locks').doc('transport-precondition');
    await ref.create({ owner: 'first' });
    const read = await ref.get();
    await ref.update({ owner: 'second' });
    const error = await within(
      5_000,
      'a stale guarded update',
      settled(ref.update({ owner: 'third' }, { lastUpdateTime: read.updateTime! })),
    );
    expect(isLostPrecondition(error), String(error)).toBe(true);
    expect((await ref.get()).data()).toEqual({ owner: 'second' });
  });

  it('talks gRPC (the REST transport is never chosen)', () => {
    const clients = log.filter((line) => line.includes('Initialized Firestore GAPIC Client'));
    expect(clients.length).toBeGreaterThan(0);
    for (const line of clients) expect(line).toContain('useFallback: false');
  });
});
