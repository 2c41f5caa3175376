/**
 * Runs once when the Next.js server starts: a missing or malformed environment variable stops
 * start-up with a message naming it, instead of surfacing on the first scheduled call.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { loadConfig } = await import('./lib/config');
  loadConfig(process.env);
}
