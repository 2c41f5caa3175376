import type { Firestore } from 'firebase-admin/firestore';
import { toDate } from '../store/timestamps';
import { createSessionValue } from './session';
import { COLLECTIONS } from '../store/collections';

/**
 * The server's half of an operator's session: `adminSessions/{sessionId}` exists from login until
 * logout (or its `expireAt`, when the TTL policy removes it). A cookie opens /admin only while its
 * session's document is here, so a copy of the cookie taken before logout opens nothing after.
 */
export const adminSessionsCollection = (db: Firestore) => db.collection(COLLECTIONS.adminSessions);

/** Creates the session's document, then the cookie value naming it. */
export async function openAdminSession(db: Firestore, input: { secret: string; now: Date }) {
  const session = createSessionValue(input);
  await adminSessionsCollection(db).doc(session.sessionId).create({ createdAt: input.now, expireAt: session.expiresAt });
  return session;
}

/** One read: the session is open while its document exists and has not expired (the TTL policy deletes late). */
export async function isAdminSessionOpen(db: Firestore, input: { sessionId: string; now: Date }): Promise<boolean> {
  const snap = await adminSessionsCollection(db).doc(input.sessionId).get();
  const expireAt = snap.exists ? toDate(snap.get('expireAt')) : null;
  return expireAt !== null && expireAt.getTime() > input.now.getTime();
}

/** Logout. A delete, so a second logout (or one racing the TTL) is no error. */
export async function closeAdminSession(db: Firestore, sessionId: string): Promise<void> {
  await adminSessionsCollection(db).doc(sessionId).delete();
}
