/**
 * Runs once when the Next.js server starts: a missing or malformed environment variable is named
 * in the log right away, instead of surfacing on the first scheduled call, and a retired one still
 * set is named as a warning (lib/runtime/retired-variables.ts). It does not throw:
 * Next would keep the rejection and answer every request with a bare 500, while a server that
 * starts answers each route with a 503 naming the variables (lib/runtime.ts).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { ConfigError, loadConfig } = await import('./lib/runtime/config');
  const { retiredVariableWarnings } = await import('./lib/runtime/retired-variables');
  for (const warning of retiredVariableWarnings(process.env)) console.warn(warning);
  try {
    loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${error.message}\nEvery route answers 503 until this is fixed.`);
  }
}
