import type { TestProject } from 'vitest/node';
import { startMailSink } from '../../scripts/mail-sink/server';
import { startFirestoreEmulator } from '../../scripts/stack/firestore-emulator';
import { freePort } from './free-port';

declare module 'vitest' {
  export interface ProvidedContext {
    firestoreEmulatorHost: string;
    mailSinkUrl: string;
    /** Names this test run, so test files that need `next build` share one build. */
    runStamp: string;
  }
}

/**
 * Starts the real parts once for the whole run: the Firestore emulator (from its jar) and the
 * mail sink. Test files share them but never each other's data: each file uses its own
 * Firebase project id and its own mail API key.
 */
export default async function setup(project: TestProject) {
  process.env.METADATA_SERVER_DETECTION = 'none';
  // A port of its own for every test run, so two runs on one machine never share (or stop) one emulator.
  const port = process.env.SCOUT_TEST_FIRESTORE_PORT ? Number(process.env.SCOUT_TEST_FIRESTORE_PORT) : await freePort();
  const emulator = await startFirestoreEmulator({ port });
  const sink = await startMailSink({ port: 0 });
  project.provide('firestoreEmulatorHost', emulator.host);
  project.provide('mailSinkUrl', sink.url);
  project.provide('runStamp', `${Date.now()}-${process.pid}`);
  return async () => {
    await sink.close();
    await emulator.stop();
  };
}
