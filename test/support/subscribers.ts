import type { DocumentData, Firestore } from 'firebase-admin/firestore';
import { subscribersCollection } from '../../lib/subscribers/subscriber';
import { guardedSubscriberUpdate } from '../../lib/subscribers/subscriber-writes';

/**
 * A test's change to a subscriber (a status, a mode, a schedule), written as every writer of
 * users/ writes: guarded by the version read, with the match index entry in the same batch. A raw
 * update would leave the index behind, which no flow of the product does (the repair sweep's
 * tests plant such drift on purpose).
 */
export async function updateSubscriber(db: Firestore, uid: string, fields: DocumentData): Promise<void> {
  await guardedSubscriberUpdate(subscribersCollection(db).doc(uid), (snap) => {
    if (!snap.exists) throw new Error(`updateSubscriber: users/${uid} does not exist`);
    return { update: fields, result: undefined };
  });
}
