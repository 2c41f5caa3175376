import { cert, getApps, initializeApp, type App, type ServiceAccount } from 'firebase-admin/app';
import { getFirestore, type Firestore } from 'firebase-admin/firestore';

/**
 * One Firestore client per project id. The emulator is selected by FIRESTORE_EMULATOR_HOST,
 * which the Google client reads itself; with it set (and METADATA_SERVER_DETECTION=none) the
 * client never reaches for Google's metadata server.
 *
 * The client talks gRPC, on purpose: the REST transport (`preferRest`), which would spare a cold
 * start loading gRPC, reads a create() on an existing id as a retryable ABORTED and retries it
 * until its deadline (firebase/firebase-admin-node#2587), and a lost precondition as
 * INVALID_ARGUMENT — the two answers every ledger claim is refereed by
 * (test/firestore-transport.emulator.test.ts; README, Deploy → Cold starts).
 */
export function createFirestore(options: { projectId: string; serviceAccountJson?: string }): Firestore {
  const appName = `scout-${options.projectId}`;
  const existing = getApps().find((a) => a.name === appName);
  const app: App =
    existing ??
    initializeApp(
      {
        projectId: options.projectId,
        ...(options.serviceAccountJson ? { credential: cert(JSON.parse(options.serviceAccountJson) as ServiceAccount) } : {}),
      },
      appName,
    );
  const db = getFirestore(app);
  if (!existing) db.settings({ ignoreUndefinedProperties: true });
  return db;
}
