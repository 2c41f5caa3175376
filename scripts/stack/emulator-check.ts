/** Exits 0 when Java 11+ and the Firestore emulator jar are present; otherwise says how to install them. */
import { findEmulatorJar, INSTALL_HELP, javaMajorVersion } from './firestore-emulator';

const java = javaMajorVersion();
const jar = findEmulatorJar();
if (java !== null && java >= 11 && jar) {
  console.log(`Firestore emulator: ${jar} (Java ${java})`);
} else {
  console.error(java === null || java < 11 ? `Java 11+ not found (found: ${java ?? 'none'}).\n${INSTALL_HELP}` : INSTALL_HELP);
  process.exit(1);
}
