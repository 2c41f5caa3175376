import type { z } from 'zod';
import { ConfigError, configSchema, credentialsProblem, describeIssues, withoutEmptyValues } from '../../lib/runtime/config';

/**
 * The CLI's slice of docs/design.md §5: what it takes to reach the store, and DIGEST_HOUR_UTC (the hour of
 * subscribers who chose none, which `scout status` checks against the runs; default 8, as the
 * app's). The rules are the app's own (picked from configSchema, and the same credentials rule),
 * so a value the app rejects is rejected here too.
 */
export const cliEnvSchema = configSchema.pick({
  FIREBASE_PROJECT_ID: true,
  FIRESTORE_EMULATOR_HOST: true,
  FIREBASE_SERVICE_ACCOUNT: true,
  DIGEST_HOUR_UTC: true,
});

export type CliEnv = z.output<typeof cliEnvSchema>;

/**
 * Parses the CLI's environment; throws ConfigError naming each missing or bad variable. As for
 * the app, credentials must be named (emulator, service account, or the explicit opt-in to the
 * platform's own, FIREBASE_SERVICE_ACCOUNT=platform), so the CLI never falls back to whatever credentials the machine happens to have.
 */
export function loadCliEnv(env: Record<string, string | undefined>): CliEnv {
  const cleaned = withoutEmptyValues(env);
  const result = cliEnvSchema.safeParse(cleaned);
  const problems = result.success ? [] : describeIssues(result.error.issues);
  const credentials = credentialsProblem(cleaned);
  if (credentials) problems.push(credentials);
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  return result.data;
}
