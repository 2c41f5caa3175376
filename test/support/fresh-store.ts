import { randomBytes } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import { afterEach, inject } from 'vitest';
import { createFirestore } from '../../lib/store/firestore';

/**
 * Stores of their own on the shared emulator, one Firebase project each (so two can be compared,
 * say a killed run's and an uninterrupted one's), closed after each test. Call at a file's top level.
 */
export function freshStores(prefix: string): () => Firestore {
  const open: Firestore[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((db) => db.terminate()));
  });
  return () => {
    process.env.METADATA_SERVER_DETECTION = 'none';
    process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
    const db = createFirestore({ projectId: `${prefix}-${randomBytes(5).toString('hex')}` });
    open.push(db);
    return db;
  };
}
