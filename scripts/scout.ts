import type { Firestore } from 'firebase-admin/firestore';
import { loadConfig, serviceAccountKey } from '../lib/runtime/config';
import type { AppDeps } from '../lib/wiring/app-deps';
import { retiredVariableWarnings } from '../lib/runtime/retired-variables';
import { createFirestore } from '../lib/store/firestore';
import { buildDeps } from '../lib/wiring/production-deps';
import { loadCliEnv } from './cli/cli-env';
import { runCli } from './cli/run-cli';

// Scout's operator CLI: `tsx scripts/scout.ts <command>`; `--help` lists the commands.
// This file only wires the process to runCli: argv, the environment, stdout/stderr, the exit code.

// `scout users list | head` closes the pipe early: that is the reader's choice, not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

for (const warning of retiredVariableWarnings(process.env)) process.stderr.write(`scout: ${warning}\n`);

let db: Firestore | undefined;
let cycle: AppDeps | undefined;

function openDb(): Firestore {
  const env = loadCliEnv(process.env);
  if (env.FIRESTORE_EMULATOR_HOST) process.env.METADATA_SERVER_DETECTION = 'none';
  const target = env.FIRESTORE_EMULATOR_HOST
    ? `the emulator at ${env.FIRESTORE_EMULATOR_HOST}`
    : `production (${serviceAccountKey(env.FIREBASE_SERVICE_ACCOUNT) ? 'service account' : "the platform's default credentials"})`;
  process.stderr.write(`scout: Firestore project ${env.FIREBASE_PROJECT_ID} on ${target}\n`);
  db = createFirestore({ projectId: env.FIREBASE_PROJECT_ID, serviceAccountJson: serviceAccountKey(env.FIREBASE_SERVICE_ACCOUNT) });
  return db;
}

try {
  process.exitCode = await runCli(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    openDb,
    digestHourUtc: () => loadCliEnv(process.env).DIGEST_HOUR_UTC,
    // The cycle's own client, built from the full configuration (a missing variable is a ConfigError naming it).
    appDeps: () => (cycle ??= buildDeps(loadConfig(process.env))),
    now: () => new Date(),
  });
} finally {
  // The client keeps its gRPC channel open; closing it lets the process exit on its own.
  await db?.terminate();
  await cycle?.db.terminate();
}
