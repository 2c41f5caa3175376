/**
 * Variables Scout once read and no longer does, each with where it went (docs/configuration.md,
 * "Retired variables"). The tuning knobs became named constants beside the code they tune, at the
 * value their default had, so a deployment that still sets one runs as before unless it had
 * changed it.
 */
const RETIRED_VARIABLES: Record<string, string> = {
  LOCK_TTL_MS: 'the constant LOCK_TTL_MS in lib/cycle/run-cycle.ts',
  SEND_CONCURRENCY: 'the constant SEND_CONCURRENCY in lib/mail/send-limiter.ts',
  SEND_MAX_ATTEMPTS: 'the constant SEND_MAX_ATTEMPTS in lib/outbox/send-rules.ts',
  SEND_BATCH_SIZE: 'the constant SEND_BATCH_SIZE in lib/mail/mailer.ts',
  FEED_TIMEOUT_MS: "the constant FEED_TIMEOUT_MS in lib/feeds/source-list.ts, or a SOURCES entry's timeoutMs",
  FEED_MAX_BYTES: "the constant FEED_MAX_BYTES in lib/feeds/source-list.ts, or a SOURCES entry's maxBytes",
  FEED_MAX_NEW_POSTINGS_PER_RUN: 'the constant FEED_MAX_NEW_POSTINGS_PER_RUN in lib/feeds/refresh-feeds.ts',
  SIGNUP_CONFIRMATIONS_PER_HOUR: 'the constant SIGNUP_CONFIRMATIONS_PER_HOUR in lib/http/rate-limit.ts',
  AI_TIMEOUT_MS: 'the constant AI_TIMEOUT_MS in lib/verdicts/ask-verdicts.ts',
  AI_CONCURRENCY: 'the constant AI_CONCURRENCY in lib/verdicts/judge-postings.ts',
  AI_MAX_CALLS_PER_RUN: 'the constant AI_MAX_CALLS_PER_RUN in lib/verdicts/ai-usage.ts',
  FIREBASE_USE_DEFAULT_CREDENTIALS: 'FIREBASE_SERVICE_ACCOUNT=platform',
  UPWORK_CLIENT_ID: "clientId in the upwork entry's params in SOURCES",
  UPWORK_CLIENT_SECRET: "clientSecret in the upwork entry's params in SOURCES",
  UPWORK_REFRESH_TOKEN: "refreshToken in the upwork entry's params in SOURCES",
};

export const RETIRED_VARIABLE_NAMES = Object.keys(RETIRED_VARIABLES);

/**
 * One warning per retired variable still set, naming it and where it went (never its value): a
 * warning, not a configuration error, so an upgrade never stops the app.
 */
export function retiredVariableWarnings(env: Record<string, string | undefined>): string[] {
  return Object.entries(RETIRED_VARIABLES)
    .filter(([name]) => env[name] !== undefined && env[name] !== '')
    .map(([name, where]) => `${name} is set but no longer read (now ${where}); remove it`);
}
