/** npm run emulator — just the Firestore emulator, on FIRESTORE_PORT (default 8080). */
import { startFirestoreEmulator } from './firestore-emulator';

const port = Number(process.env.FIRESTORE_PORT ?? 8080);
startFirestoreEmulator({ port, log: (line) => console.log(line) })
  .then((emulator) => {
    console.log(`Firestore emulator ready: FIRESTORE_EMULATOR_HOST=${emulator.host}`);
    // A stop that fails ends the process as a failed start does, not as an unhandled rejection.
    const stop = () => void emulator.stop().then(() => process.exit(0), fail);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  })
  .catch(fail);

function fail(error: unknown) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
