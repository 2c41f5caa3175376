import { cert, getApps, initializeApp, type App } from 'firebase-admin/app';
import { getFirestore, type Firestore } from 'firebase-admin/firestore';

/**
 * One Firestore client per project id. The emulator is selected by FIRESTORE_EMULATOR_HOST,
 * which the Google client reads itself; with it set (and METADATA_SERVER_DETECTION=none) the
 * client never reaches for Google's metadata server.
 */
export function createFirestore(options: { projectId: string; serviceAccountJson?: string }): Firestore {
  const appName = `scout-${options.projectId}`;
  const existing = getApps().find((a) => a.name === appName);
  const app: App =
    existing ??
    initializeApp(
      {
        projectId: options.projectId,
        ...(options.serviceAccountJson ? { credential: cert(JSON.parse(options.serviceAccountJson)) } : {}),
      },
      appName,
    );
  const db = getFirestore(app);
  if (!existing) db.settings({ ignoreUndefinedProperties: true });
  return db;
}
