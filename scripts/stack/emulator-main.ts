/** npm run emulator — just the Firestore emulator, on FIRESTORE_PORT (default 8080). */
import { startFirestoreEmulator } from './firestore-emulator';

const port = Number(process.env.FIRESTORE_PORT ?? 8080);
startFirestoreEmulator({ port, log: (line) => console.log(line) })
  .then((emulator) => {
    console.log(`Firestore emulator ready: FIRESTORE_EMULATOR_HOST=${emulator.host}`);
    const stop = () => emulator.stop().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  })
  .catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
