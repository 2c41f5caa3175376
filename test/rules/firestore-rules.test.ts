import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  assertFails,
  assertSucceeds,
  initializeTestEnvironment,
  type RulesTestContext,
  type RulesTestEnvironment,
} from '@firebase/rules-unit-testing';
import { setLogLevel } from 'firebase/firestore';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * firestore.rules, as deployed, against the emulator: Scout's server reaches Firestore only through
 * the Admin SDK (which bypasses rules), so no client — signed in or not, with any claims — may
 * read, list or write any of the ledger's collections.
 */

/** Every collection the code uses (each `collection('…')` in lib/), plus the signup rate-limit counters. */
const COLLECTIONS = [
  'users',
  'jobs',
  'deliveries',
  'emails',
  'locks',
  'runs',
  'feeds',
  'rateLimits',
  'adminSessions',
  'sourceTokens',
  'channelLinks',
] as const;
const SEED_ID = 'seeded';

let testEnv: RulesTestEnvironment;

/** "127.0.0.1:8086" or "[::1]:8086" → host and port. */
function parseHost(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(':');
  return { host: value.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(value.slice(at + 1)) };
}

beforeAll(async () => {
  // Every denial is expected here; the client SDK would log each one as an error.
  setLogLevel('silent');
  testEnv = await initializeTestEnvironment({
    projectId: `demo-rules-${randomBytes(4).toString('hex')}`,
    firestore: { ...parseHost(inject('firestoreEmulatorHost')), rules: readFileSync('firestore.rules', 'utf8') },
  });
  // One existing document per collection, so every read below targets something that is there.
  await testEnv.withSecurityRulesDisabled(async (context) => {
    const db = context.firestore();
    for (const name of COLLECTIONS) await db.collection(name).doc(SEED_ID).set({ seeded: true, status: 'active' });
    await db.doc('users/seeded/anything/nested').set({ seeded: true });
  });
});

afterAll(async () => {
  await testEnv?.clearFirestore();
  await testEnv?.cleanup();
});

const CLIENTS: { name: string; context: () => RulesTestContext }[] = [
  { name: 'unauthenticated', context: () => testEnv.unauthenticatedContext() },
  { name: 'authenticated', context: () => testEnv.authenticatedContext('alice', { email: 'alice@example.com', email_verified: true }) },
  // A client that signs in as the subscriber whose id it guesses, or carries an admin claim, is no better off.
  { name: 'authenticated as the document id', context: () => testEnv.authenticatedContext(SEED_ID) },
  { name: 'authenticated with an admin claim', context: () => testEnv.authenticatedContext('operator', { admin: true }) },
];

describe.each(COLLECTIONS)('%s', (name) => {
  it.each(CLIENTS)('$name clients can neither read nor write', async ({ context }) => {
    const db = context().firestore();
    const seeded = db.collection(name).doc(SEED_ID);
    const fresh = db.collection(name).doc(`client-${randomBytes(4).toString('hex')}`);

    // Reads: one document, the collection, a query.
    await assertFails(seeded.get());
    await assertFails(fresh.get());
    await assertFails(db.collection(name).get());
    await assertFails(db.collection(name).where('status', '==', 'active').limit(1).get());

    // Writes: create, overwrite, merge, update, delete, add.
    await assertFails(fresh.set({ status: 'active' }));
    await assertFails(seeded.set({ status: 'unsubscribed' }));
    await assertFails(seeded.set({ status: 'unsubscribed' }, { merge: true }));
    await assertFails(seeded.update({ status: 'unsubscribed' }));
    await assertFails(seeded.delete());
    await assertFails(db.collection(name).add({ status: 'active' }));
    await assertFails(db.batch().set(fresh, { status: 'active' }).delete(seeded).commit());
  });
});

describe('everything else', () => {
  it.each(CLIENTS)('$name clients cannot reach nested or unknown paths either', async ({ context }) => {
    const db = context().firestore();
    await assertFails(db.doc('users/seeded/anything/nested').get());
    await assertFails(db.collectionGroup('anything').get());
    await assertFails(db.doc('somethingNew/doc').set({ x: 1 }));
  });

  it('the seeded documents are still there, unchanged: every denial above came from the rules', async () => {
    await testEnv.withSecurityRulesDisabled(async (context) => {
      const db = context.firestore();
      for (const name of COLLECTIONS) {
        const snap = await assertSucceeds(db.collection(name).doc(SEED_ID).get());
        expect(snap.data(), name).toEqual({ seeded: true, status: 'active' });
        expect((await db.collection(name).get()).size, name).toBe(1);
      }
    });
  });
});
