import type { z } from 'zod';
import { ConfigError, configSchema } from '../../lib/config';

/**
 * The CLI's slice of DESIGN §5: only what it takes to reach the store. The rules are the app's
 * own (picked from configSchema), so a value the app rejects is rejected here too.
 */
export const cliEnvSchema = configSchema.pick({ FIREBASE_PROJECT_ID: true, FIRESTORE_EMULATOR_HOST: true, FIREBASE_SERVICE_ACCOUNT: true });

export type CliEnv = z.output<typeof cliEnvSchema>;

/**
 * Parses the CLI's environment; throws ConfigError naming each missing or bad variable. One of
 * FIRESTORE_EMULATOR_HOST (local) or FIREBASE_SERVICE_ACCOUNT (production) is required, so the
 * CLI never falls back to whatever credentials the machine happens to have.
 */
export function loadCliEnv(env: Record<string, string | undefined>): CliEnv {
  // As in loadConfig: an empty value in .env means "not set".
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = cliEnvSchema.safeParse(cleaned);
  const problems = result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'} ${issue.message}`);
  if (!cleaned.FIRESTORE_EMULATOR_HOST && !cleaned.FIREBASE_SERVICE_ACCOUNT) {
    problems.push(
      'FIRESTORE_EMULATOR_HOST or FIREBASE_SERVICE_ACCOUNT is required (the emulator host:port locally, the service account key JSON in production)',
    );
  }
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  return result.data;
}
