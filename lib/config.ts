import { z } from 'zod';

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

/** Every knob of DESIGN §5, parsed once; nothing else in the code reads process.env. */
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
  FIREBASE_SERVICE_ACCOUNT: z
    .string()
    .refine((v) => {
      try {
        return typeof JSON.parse(v).private_key === 'string';
      } catch {
        return false;
      }
    }, 'must be the service account key JSON')
    .optional(),
  FIRESTORE_EMULATOR_HOST: z
    .string()
    .regex(/^[^\s:]+:\d+$/, 'must be host:port')
    .optional(),
  FEED_URLS: z.string({ error: 'is required' }).min(1, 'is required'),
  DIGEST_HOUR_UTC: int(8, 0, 23),
  DIGEST_MAX_ITEMS: int(20, 1, 100),
  LOCK_TTL_MS: int(600_000, 1_000, 3_600_000),
  SEND_RATE_PER_SEC: z.coerce
    .number({ error: (issue) => (issue.code === 'invalid_type' ? 'must be a number' : undefined) })
    .positive('must be above 0')
    .max(1000, 'must be at most 1000')
    .default(2),
  SEND_CONCURRENCY: int(2, 1, 50),
  SEND_MAX_ATTEMPTS: int(5, 1, 20),
  /** Emails per provider request (Resend's batch endpoint takes up to 100); 1 turns batching off. */
  SEND_BATCH_SIZE: int(100, 1, 100),
  RETENTION_DAYS: int(30, 2, 365),
  RUN_BUDGET_MS: int(240_000, 1_000, 900_000),
  FEED_TIMEOUT_MS: int(10_000, 100, 60_000),
  FEED_MAX_BYTES: int(5_000_000, 1_000, 50_000_000),
  ALLOW_CLOCK_OVERRIDE: flag(false),
  /** Set by Vercel itself on every deployment: the client address is then the X-Forwarded-For Vercel overwrites. */
  VERCEL: flag(false),
  /** Proxies in front that append to X-Forwarded-For (off Vercel); 0: no header is trusted (lib/http/client-address.ts). */
  TRUSTED_PROXY_HOPS: int(0, 0, 10),
  /** Emails the public signup form may cause per hour, all addresses together (confirmations and manage links). */
  SIGNUP_CONFIRMATIONS_PER_HOUR: int(100, 1, 100_000),
});

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}\nSee .env.example for every variable and its default.`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws ConfigError naming each bad variable (never echoing a secret's value). */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // An empty string in .env means "not set": let the default apply instead of failing coercion.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = configSchema.safeParse(cleaned);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'} ${issue.message}`));
}
