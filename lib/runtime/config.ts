import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { estimatedSecretBits } from './secret-strength';
import { DEFAULT_MATCH_INDEX_SHARDS, isMatchIndexShardCount, MAX_MATCH_INDEX_SHARDS } from './shard';

const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

const int = (fallback: number, min: number, max: number) =>
  z.coerce
    .number({ error: (issue) => (issue.code === 'invalid_type' ? 'must be a number' : undefined) })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`)
    .default(fallback);

const secret = z.string({ error: 'is required' }).min(16, 'must be at least 16 characters');

/** `FIREBASE_SERVICE_ACCOUNT=platform`: the Application Default Credentials of the platform Scout runs on. */
export const PLATFORM_CREDENTIALS = 'platform';

// What the Admin SDK's cert() requires of a key; anything less fails at the first request.
function isServiceAccountKey(text: string): boolean {
  try {
    const key = JSON.parse(text) as { private_key?: unknown; client_email?: unknown };
    return typeof key.private_key === 'string' && typeof key.client_email === 'string';
  } catch {
    return false;
  }
}

/** The key to hand the Admin SDK; none for `platform`, whose client then finds the platform's own. */
export function serviceAccountKey(value: string | undefined): string | undefined {
  return value === PLATFORM_CREDENTIALS ? undefined : value;
}

/**
 * Every variable an operator sets (docs/configuration.md lists the same names), parsed once;
 * nothing else in the code reads process.env. Tuning that no operator needs to change is a named
 * constant beside the code it tunes instead (`Tuning`).
 */
export const configSchema = z.object({
  CRON_SECRET: secret,
  LINK_SECRET: secret,
  ADMIN_SECRET: secret,
  APP_URL: z
    .url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? 'is required' : 'must be an http(s) URL') })
    .transform((u) => u.replace(/\/+$/, '')),
  MAIL_FROM: z
    .string({ error: 'is required' })
    .min(3)
    .refine((v) => /<?[^\s<>@]+@[^\s<>@]+>?\s*$/.test(v), 'must be an address like "Scout <alerts@example.com>"'),
  RESEND_API_KEY: z.string({ error: 'is required' }).min(1, 'is required'),
  RESEND_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://api.resend.com'),
  CRON_ALLOW_QUERY_SECRET: flag(false),
  FIREBASE_PROJECT_ID: z
    .string({ error: 'is required' })
    .regex(/^[a-z0-9-]{4,40}$/, 'must be a Firebase project id (lowercase letters, digits, dashes)'),
  /**
   * The service account key JSON, or `platform` where the platform itself provides Google
   * credentials (Cloud Run, App Engine, GCE): an explicit opt-in, never a silent fallback.
   */
  FIREBASE_SERVICE_ACCOUNT: z
    .string()
    .refine(
      (v) => v === PLATFORM_CREDENTIALS || isServiceAccountKey(v),
      `must be the service account key JSON, or ${PLATFORM_CREDENTIALS} where the platform provides Google credentials`,
    )
    .optional(),
  /** The Firebase SDK's own local-development variable, read by the Google client itself; refused in production. */
  FIRESTORE_EMULATOR_HOST: z
    .string()
    .regex(/^[^\s:]+:\d+$/, 'must be host:port')
    .optional(),
  /** Plain feeds, `name=URL` separated by commas or spaces; each becomes a `feed` source. */
  FEED_URLS: z.string().optional(),
  /** Every kind of source as a JSON array (README "Sources"); checked entry by entry by lib/feeds/source-list.ts. */
  SOURCES: z.string().optional(),
  DIGEST_HOUR_UTC: int(8, 0, 23),
  DIGEST_MAX_ITEMS: int(20, 1, 100),
  SEND_RATE_PER_SEC: z.coerce
    .number({ error: (issue) => (issue.code === 'invalid_type' ? 'must be a number' : undefined) })
    .positive('must be above 0')
    .max(1000, 'must be at most 1000')
    .default(2),
  RETENTION_DAYS: int(30, 2, 365),
  RUN_BUDGET_MS: int(240_000, 1_000, 900_000),
  /** Lets a configured feed URL sit on a private address (local stack, tests); refused in production. */
  FEED_ALLOW_PRIVATE_ADDRESSES: flag(false),
  /**
   * Lets a subscriber's Slack, Discord or webhook URL point at loopback (the local stand-ins in
   * scripts/, tests): every channel URL is otherwise a public https address. Refused in production.
   */
  CHANNEL_ALLOW_LOOPBACK: flag(false),
  /**
   * The Telegram channel (docs/channels.md): Scout's bot, from @BotFather. Telegram is offered only
   * when the token and the bot's username are both set. The secret Telegram sends back on every
   * update is derived, not set (telegramWebhookSecret); `scout telegram connect` registers it.
   */
  TELEGRAM_BOT_TOKEN: z
    .string()
    .regex(/^\d+:[A-Za-z0-9_-]{20,}$/, 'must be a bot token from @BotFather (digits, a colon, then the secret)')
    .optional(),
  TELEGRAM_BOT_USERNAME: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_]{3,31}$/, "must be the bot's username, without the @")
    .optional(),
  TELEGRAM_API_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://api.telegram.org'),
  /**
   * Documents the match index is spread over (lib/subscribers/match-index-layout.ts): a power of
   * two, sized for the subscribers (docs/deploy.md). A change is applied by the repair sweep, which
   * rebuilds the index under it.
   */
  MATCH_INDEX_SHARDS: int(DEFAULT_MATCH_INDEX_SHARDS, DEFAULT_MATCH_INDEX_SHARDS, MAX_MATCH_INDEX_SHARDS).refine(
    isMatchIndexShardCount,
    'must be a power of two (16, 32, 64, …)',
  ),
  ALLOW_CLOCK_OVERRIDE: flag(false),
  /** Proxies in front that append to X-Forwarded-For (off Vercel); 0: no header is trusted (lib/http/client-address.ts). */
  TRUSTED_PROXY_HOPS: int(0, 0, 10),
  /**
   * The optional AI verdict stage (docs/verdicts.md): on when AI_BASE_URL and AI_MODEL are both
   * set (aiProblems names a half-set trio). Any OpenAI-compatible chat-completions server.
   */
  AI_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** Sent as the bearer token; optional, for servers without auth (a local Ollama). Never logged. */
  AI_API_KEY: z.string().regex(/^\S+$/, 'must not contain spaces').optional(),
  AI_MODEL: z
    .string()
    .regex(/^\S{1,200}$/, 'must be a model name (no spaces, at most 200 characters)')
    .optional(),
  /**
   * Tokens (prompt + completion, as the server reports them) per UTC day; past it, keywords alone.
   * Each request repeats the subscriber's prefix, so a judged pair costs about 3.4 times what it did
   * in a batch (docs/verdicts.md "Cost"): 4,000,000 judges a few more pairs a day than 1,000,000 did.
   */
  AI_DAILY_TOKEN_BUDGET: int(4_000_000, 1_000, 1_000_000_000),
});

/**
 * What the platform sets, not the operator: read, never listed as a setting. `VERCEL` is set by
 * Vercel on every deployment; the client address is then the X-Forwarded-For Vercel overwrites.
 */
const platformSchema = z.object({ VERCEL: flag(false) });

/**
 * The constants that were once variables, by name: each lives beside the code it tunes, which
 * reads `config.tuning?.NAME ?? NAME`. Production sets none; tests, the bench and the chaos suite
 * pass another value here, never through the environment.
 */
export type Tuning = Partial<
  Record<
    | 'LOCK_TTL_MS'
    | 'SEND_CONCURRENCY'
    | 'SEND_MAX_ATTEMPTS'
    | 'SEND_BATCH_SIZE'
    | 'FEED_TIMEOUT_MS'
    | 'FEED_MAX_BYTES'
    | 'FEED_MAX_NEW_POSTINGS_PER_RUN'
    | 'SIGNUP_CONFIRMATIONS_PER_HOUR'
    | 'AI_TIMEOUT_MS'
    | 'AI_CONCURRENCY'
    | 'AI_MAX_CALLS_PER_RUN',
    number
  >
>;

export type Config = z.output<typeof configSchema> & z.output<typeof platformSchema> & { tuning?: Tuning };

export class ConfigError extends Error {
  /** Each problem starts with the variable's name: `CRON_SECRET is required`. */
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}\nSee .env.example for every variable and its default.`);
    this.name = 'ConfigError';
  }

  /** The names of the variables at fault, never their values: safe to show a caller. */
  get variables(): string[] {
    return [...new Set(this.problems.map((p) => /^[A-Z][A-Z0-9_]*/.exec(p)?.[0]).filter((name) => name !== undefined))];
  }
}

/** An empty string in .env means "not set": the default applies instead of failing coercion. */
export function withoutEmptyValues(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
}

/**
 * The one rule for Firestore credentials, shared by the app and the CLI: the emulator, a service
 * account key, or an explicit opt-in to the platform's own credentials (`platform`). Without any of
 * them the Admin SDK would start anyway and fail every request with "Could not load the default
 * credentials"; this names the variable at start instead. Takes the cleaned, unparsed values.
 */
export function credentialsProblem(env: Record<string, string>): string | null {
  if (env.FIRESTORE_EMULATOR_HOST || env.FIREBASE_SERVICE_ACCOUNT) return null;
  return (
    'FIREBASE_SERVICE_ACCOUNT is required: the service account key JSON, or platform where the platform provides ' +
    'Google credentials (e.g. Cloud Run), or FIRESTORE_EMULATOR_HOST for the local emulator'
  );
}

/** The variables that point Scout at a model; AI_BASE_URL and AI_MODEL turn the verdict stage on. */
export const AI_SERVER_VARIABLES = ['AI_BASE_URL', 'AI_API_KEY', 'AI_MODEL'] as const;
const AI_REQUIRED = ['AI_BASE_URL', 'AI_MODEL'] as const;

/**
 * Half a model setup is a mistake, not "off": setting any of AI_BASE_URL, AI_API_KEY, AI_MODEL
 * without both AI_BASE_URL and AI_MODEL names the missing ones. Takes the cleaned, unparsed values.
 */
export function aiProblems(env: Record<string, string>): string[] {
  const set = AI_SERVER_VARIABLES.filter((name) => env[name] !== undefined);
  if (set.length === 0) return [];
  return AI_REQUIRED.filter((name) => env[name] === undefined).map(
    (name) =>
      `${name} is required when ${set.join(' and ')} ${set.length === 1 ? 'is' : 'are'} set (the AI verdict stage needs both AI_BASE_URL and AI_MODEL)`,
  );
}

/** The variables of Scout's Telegram bot: both, or neither (Telegram is then not offered). */
export const TELEGRAM_VARIABLES = ['TELEGRAM_BOT_TOKEN', 'TELEGRAM_BOT_USERNAME'] as const;

/** Half a bot is a mistake, not "off": naming the missing variables. Takes the cleaned, unparsed values. */
export function telegramProblems(env: Record<string, string>): string[] {
  const set = TELEGRAM_VARIABLES.filter((name) => env[name] !== undefined);
  if (set.length === 0) return [];
  return TELEGRAM_VARIABLES.filter((name) => env[name] === undefined).map(
    (name) => `${name} is required when ${set.join(' and ')} ${set.length === 1 ? 'is' : 'are'} set (the Telegram channel needs both)`,
  );
}

/** Whether the Telegram channel is offered: Scout's bot is configured. */
export function telegramEnabled(config: Pick<Config, 'TELEGRAM_BOT_TOKEN' | 'TELEGRAM_BOT_USERNAME'>): boolean {
  return Boolean(config.TELEGRAM_BOT_TOKEN && config.TELEGRAM_BOT_USERNAME);
}

/**
 * The secret Telegram sends back in X-Telegram-Bot-Api-Secret-Token on every update to
 * /api/telegram: derived from LINK_SECRET and the bot's token (a keyed hash with its own label), so
 * an operator sets nothing more, and a new token or link secret gives a new one (run
 * `scout telegram connect` again). 43 characters of base64url, within Telegram's 1–256 of A–Z, a–z, 0–9, _ and -.
 */
export function telegramWebhookSecret(config: Pick<Config, 'LINK_SECRET' | 'TELEGRAM_BOT_TOKEN'>): string {
  return createHmac('sha256', config.LINK_SECRET)
    .update(`telegram-webhook\0${config.TELEGRAM_BOT_TOKEN ?? ''}`)
    .digest('base64url');
}

/** Whether the optional AI verdict stage is configured (off by default: keyword matching alone). */
export function aiEnabled(config: Pick<Config, 'AI_BASE_URL' | 'AI_MODEL'>): boolean {
  return config.AI_BASE_URL !== undefined && config.AI_MODEL !== undefined;
}

/** zod's issues as `NAME message` lines. */
export function describeIssues(issues: { path: PropertyKey[]; message: string }[]): string[] {
  return issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'} ${issue.message}`);
}

/** Parses the environment; throws ConfigError naming each bad variable (never echoing a secret's value). */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const cleaned = withoutEmptyValues(env);
  const result = configSchema.extend(platformSchema.shape).safeParse(cleaned);
  const problems = result.success ? [] : describeIssues(result.error.issues);
  const credentials = credentialsProblem(cleaned);
  if (credentials) problems.push(credentials);
  problems.push(...aiProblems(cleaned));
  problems.push(...telegramProblems(cleaned));
  if (cleaned.FEED_URLS === undefined && cleaned.SOURCES === undefined)
    problems.push('FEED_URLS is required (or SOURCES): the job sources Scout reads');
  if (result.success) problems.push(...deploymentProblems(result.data, cleaned.NODE_ENV));
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  return result.data;
}

/**
 * Whether this is a production deployment: NODE_ENV=production serving an APP_URL off loopback.
 * `next start` sets NODE_ENV=production locally too, so NODE_ENV alone cannot tell; what marks the
 * local stack and the tests is that Scout serves itself on loopback, where no subscriber could follow
 * an emailed link. The emulator host is no such mark: it is a setting a production environment
 * can carry by mistake, so production refuses it instead of being excused by it.
 */
export function runsInProduction(config: Pick<Config, 'APP_URL'>, nodeEnv: string | undefined): boolean {
  return nodeEnv === 'production' && !servesOnLoopback(config.APP_URL);
}

function servesOnLoopback(appUrl: string): boolean {
  const host = new URL(appUrl).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d+){3}$/.test(host);
}

const IN_PRODUCTION = '(NODE_ENV=production with an APP_URL off loopback)';

/** Settings that are fine on the local stack and dangerous in production; secrets are checked everywhere. */
function deploymentProblems(config: Config, nodeEnv: string | undefined): string[] {
  const production = runsInProduction(config, nodeEnv);
  const problems = secretProblems(config, production);
  if (!production) return problems;
  if (config.FIRESTORE_EMULATOR_HOST)
    problems.push(`FIRESTORE_EMULATOR_HOST must not be set in production ${IN_PRODUCTION}: it sends every read and write to an emulator`);
  // A private feed address in production could only be the platform's own services (the metadata server, a neighbour's admin port).
  if (config.FEED_ALLOW_PRIVATE_ADDRESSES) problems.push(`FEED_ALLOW_PRIVATE_ADDRESSES must not be true in production ${IN_PRODUCTION}`);
  // Loopback channels in production would let a subscriber make Scout post to its own ports.
  if (config.CHANNEL_ALLOW_LOOPBACK) problems.push(`CHANNEL_ALLOW_LOOPBACK must not be true in production ${IN_PRODUCTION}`);
  // ?now= moves the run's clock: digests of any day could be flushed, alerts judged against any date.
  if (config.ALLOW_CLOCK_OVERRIDE)
    problems.push(`ALLOW_CLOCK_OVERRIDE must not be true in production ${IN_PRODUCTION}: anyone with the cron secret could replay any day`);
  return problems;
}

/** The local stack's secrets, published in this repository: never acceptable in production. */
export const LOCAL_STACK_SECRETS = {
  CRON_SECRET: 'local-cron-secret-not-for-production',
  LINK_SECRET: 'local-link-secret-not-for-production',
  ADMIN_SECRET: 'local-admin-secret-not-for-production',
} as const;

/** Production secrets: shorter than this is guessable offline (`openssl rand -base64 32` gives 44). */
export const MIN_PRODUCTION_SECRET_LENGTH = 32;
/**
 * Estimated bits (secret-strength.ts) below which a secret is a pattern, not a secret. Everywhere,
 * the floor only catches patterns; in production it asks for what a random 32-character value has.
 */
export const MIN_SECRET_BITS = 48;
export const MIN_PRODUCTION_SECRET_BITS = 96;
const SECRET_NAMES = ['CRON_SECRET', 'LINK_SECRET', 'ADMIN_SECRET'] as const;
const GENERATE = 'generate one with `openssl rand -base64 32`';

/**
 * Weak secrets named by variable, never by value: predictable (a repeated short pattern, too few
 * different characters) anywhere; in production also too short, shared between two roles (one
 * leak would open both: a scheduler's log would sign links), or one of the local stack's published values.
 */
function secretProblems(config: Config, production: boolean): string[] {
  const problems: string[] = [];
  const published = new Set<string>(Object.values(LOCAL_STACK_SECRETS));
  const minBits = production ? MIN_PRODUCTION_SECRET_BITS : MIN_SECRET_BITS;
  for (const [i, name] of SECRET_NAMES.entries()) {
    const value = config[name];
    if (production && published.has(value)) problems.push(`${name} is one of the local stack's published values; ${GENERATE}`);
    else if (production && value.length < MIN_PRODUCTION_SECRET_LENGTH)
      problems.push(`${name} must be at least ${MIN_PRODUCTION_SECRET_LENGTH} characters in production`);
    else if (estimatedSecretBits(value) < minBits)
      problems.push(`${name} is too predictable (a repeated short pattern or too few different characters); ${GENERATE}`);
    if (!production) continue;
    for (const other of SECRET_NAMES.slice(i + 1)) {
      if (config[other] === value) problems.push(`${name} must differ from ${other}`);
    }
  }
  return problems;
}
