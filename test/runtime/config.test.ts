import { describe, expect, it } from 'vitest';
import {
  aiEnabled,
  ConfigError,
  loadConfig,
  LOCAL_STACK_SECRETS,
  PLATFORM_CREDENTIALS,
  serviceAccountKey,
  telegramEnabled,
} from '../../lib/runtime/config';

// Shaped like `openssl rand -base64 32`: 'c' × 32 was valid here once, and is exactly the weak secret start now refuses.
const valid = {
  CRON_SECRET: 'q7Vd0mX2LrT9bN4kWz8sYh1cJf6pGu3eAa5iOo/Ex+M=',
  LINK_SECRET: 'H3nK8wZt2RvB6yLq0dFj9sXc4mPg1uTe7aNi5oWr+Yk=',
  ADMIN_SECRET: 'Zb4Fq9Lm2Xw7Tc0Rk5Vd8Ns1Jh6Yg3Pe/Ua4Io2Ex9=',
  APP_URL: 'https://scout.example.com/',
  MAIL_FROM: 'Scout <alerts@scout.example.com>',
  RESEND_API_KEY: 're_123',
  FIREBASE_PROJECT_ID: 'scout-prod',
  FEED_URLS: 'https://jobs.example.com/rss',
  FIREBASE_SERVICE_ACCOUNT: 'platform',
};

/** What marks the local stack and the tests: Scout serves itself on loopback, against the emulator. */
const LOCAL_STACK = { APP_URL: 'http://127.0.0.1:3000', FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080' };

const problemsOf = (env: Record<string, string | undefined>): string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('configuration', () => {
  it('applies the documented defaults', () => {
    expect(loadConfig(valid)).toMatchObject({
      APP_URL: 'https://scout.example.com',
      CRON_ALLOW_QUERY_SECRET: false,
      ALLOW_CLOCK_OVERRIDE: false,
      DIGEST_HOUR_UTC: 8,
      DIGEST_MAX_ITEMS: 20,
      RESEND_BASE_URL: 'https://api.resend.com',
    });
  });

  it('names every missing or malformed variable, and never echoes a secret', () => {
    try {
      loadConfig({ ...valid, CRON_SECRET: 'hunter2', DIGEST_HOUR_UTC: '24', ALLOW_CLOCK_OVERRIDE: 'yes', FEED_URLS: undefined });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      for (const name of ['CRON_SECRET', 'DIGEST_HOUR_UTC', 'ALLOW_CLOCK_OVERRIDE', 'FEED_URLS']) expect(message).toContain(name);
      expect(message).not.toContain('hunter2');
    }
  });

  it('keeps feeds off private addresses by default', () => {
    expect(loadConfig(valid).FEED_ALLOW_PRIVATE_ADDRESSES).toBe(false);
  });

  it('refuses weak secrets in production, naming the variable and never its value', () => {
    const production = { ...valid, NODE_ENV: 'production' };
    expect(problemsOf(production)).toEqual([]);
    expect(problemsOf({ ...production, CRON_SECRET: 'short-but-16-chars!' })).toEqual([
      'CRON_SECRET must be at least 32 characters in production',
    ]);
    expect(problemsOf({ ...production, ADMIN_SECRET: valid.LINK_SECRET })).toEqual(['LINK_SECRET must differ from ADMIN_SECRET']);
    const published = problemsOf({ ...production, ...LOCAL_STACK_SECRETS });
    expect(published).toEqual([
      "CRON_SECRET is one of the local stack's published values; generate one with `openssl rand -base64 32`",
      "LINK_SECRET is one of the local stack's published values; generate one with `openssl rand -base64 32`",
      "ADMIN_SECRET is one of the local stack's published values; generate one with `openssl rand -base64 32`",
    ]);
    for (const value of Object.values(LOCAL_STACK_SECRETS)) expect(published.join('\n')).not.toContain(value);
    // The local stack and the tests (an APP_URL on loopback, or not production) keep their published values.
    expect(problemsOf({ ...production, ...LOCAL_STACK_SECRETS, ...LOCAL_STACK })).toEqual([]);
    expect(problemsOf({ ...valid, ...LOCAL_STACK_SECRETS })).toEqual([]);
  });

  it('refuses FEED_ALLOW_PRIVATE_ADDRESSES in production (NODE_ENV=production, APP_URL off loopback), naming it', () => {
    const production = { ...valid, NODE_ENV: 'production', FEED_ALLOW_PRIVATE_ADDRESSES: 'true' };
    expect(() => loadConfig(production)).toThrow(ConfigError);
    expect(() => loadConfig(production)).toThrow(/FEED_ALLOW_PRIVATE_ADDRESSES/);
    expect(loadConfig({ ...production, FEED_ALLOW_PRIVATE_ADDRESSES: 'false' }).FEED_ALLOW_PRIVATE_ADDRESSES).toBe(false);
    // The local stack and the tests run `next start` (NODE_ENV=production) with an APP_URL on loopback.
    expect(loadConfig({ ...production, ...LOCAL_STACK }).FEED_ALLOW_PRIVATE_ADDRESSES).toBe(true);
    expect(loadConfig({ ...production, NODE_ENV: 'development' }).FEED_ALLOW_PRIVATE_ADDRESSES).toBe(true);
  });

  it('refuses secrets of low estimated entropy everywhere, naming the variable, never its value, and saying how to make one', () => {
    const predictable = [
      'a'.repeat(32),
      'password'.repeat(4),
      'abc'.repeat(11),
      'ab'.repeat(20),
      `${'a'.repeat(31)}b`,
      '0123456789'.repeat(4),
    ];
    for (const value of predictable) {
      for (const env of [valid, { ...valid, NODE_ENV: 'production' }, { ...valid, ...LOCAL_STACK, NODE_ENV: 'production' }]) {
        const problems = problemsOf({ ...env, CRON_SECRET: value });
        expect(problems, value).toEqual([
          'CRON_SECRET is too predictable (a repeated short pattern or too few different characters); generate one with `openssl rand -base64 32`',
        ]);
        expect(problems.join('\n')).not.toContain(value);
      }
    }
    expect(problemsOf({ ...valid, LINK_SECRET: 'x'.repeat(40), ADMIN_SECRET: 'password'.repeat(5) }).map((p) => p.split(' ')[0])).toEqual([
      'LINK_SECRET',
      'ADMIN_SECRET',
    ]);
    // What `openssl rand -base64 32` and `openssl rand -hex 32` give passes; so do the test stacks' own secrets.
    expect(
      problemsOf({ ...valid, NODE_ENV: 'production', CRON_SECRET: 'f3a9c2e17b04d6589e1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70' }),
    ).toEqual([]);
    expect(problemsOf({ ...valid, CRON_SECRET: 'test-cron-secret-0123456789', LINK_SECRET: 'bench-secret-0123456789' })).toEqual([]);
  });

  it('never skips the production checks because FIRESTORE_EMULATOR_HOST is set, and refuses that variable in production', () => {
    const production = { ...valid, NODE_ENV: 'production', FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080' };
    expect(problemsOf(production)).toEqual([
      'FIRESTORE_EMULATOR_HOST must not be set in production (NODE_ENV=production with an APP_URL off loopback): it sends every read and write to an emulator',
    ]);
    expect(problemsOf({ ...production, ...LOCAL_STACK_SECRETS, FEED_ALLOW_PRIVATE_ADDRESSES: 'true' })).toEqual([
      "CRON_SECRET is one of the local stack's published values; generate one with `openssl rand -base64 32`",
      "LINK_SECRET is one of the local stack's published values; generate one with `openssl rand -base64 32`",
      "ADMIN_SECRET is one of the local stack's published values; generate one with `openssl rand -base64 32`",
      'FIRESTORE_EMULATOR_HOST must not be set in production (NODE_ENV=production with an APP_URL off loopback): it sends every read and write to an emulator',
      'FEED_ALLOW_PRIVATE_ADDRESSES must not be true in production (NODE_ENV=production with an APP_URL off loopback)',
    ]);
    // Every loopback spelling of APP_URL is the local stack; a public one is production.
    for (const appUrl of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000', 'http://scout.localhost:3000'])
      expect(problemsOf({ ...production, APP_URL: appUrl }), appUrl).toEqual([]);
    expect(problemsOf({ ...production, APP_URL: 'https://10.0.0.5' })).toHaveLength(1);
  });

  it('refuses ALLOW_CLOCK_OVERRIDE=true in production, as it does FEED_ALLOW_PRIVATE_ADDRESSES', () => {
    const production = { ...valid, NODE_ENV: 'production', ALLOW_CLOCK_OVERRIDE: 'true' };
    expect(problemsOf(production)).toEqual([
      'ALLOW_CLOCK_OVERRIDE must not be true in production (NODE_ENV=production with an APP_URL off loopback): anyone with the cron secret could replay any day',
    ]);
    expect(loadConfig({ ...production, ALLOW_CLOCK_OVERRIDE: 'false' }).ALLOW_CLOCK_OVERRIDE).toBe(false);
    expect(loadConfig({ ...production, ...LOCAL_STACK }).ALLOW_CLOCK_OVERRIDE).toBe(true);
    expect(loadConfig({ ...production, NODE_ENV: 'development' }).ALLOW_CLOCK_OVERRIDE).toBe(true);
  });

  it('refuses CHANNEL_ALLOW_LOOPBACK=true in production: a subscriber could make Scout post to its own ports', () => {
    const production = { ...valid, NODE_ENV: 'production', CHANNEL_ALLOW_LOOPBACK: 'true' };
    expect(problemsOf(production)).toEqual([
      'CHANNEL_ALLOW_LOOPBACK must not be true in production (NODE_ENV=production with an APP_URL off loopback)',
    ]);
    expect(loadConfig({ ...production, NODE_ENV: 'development' }).CHANNEL_ALLOW_LOOPBACK).toBe(true);
    expect(loadConfig(valid).CHANNEL_ALLOW_LOOPBACK).toBe(false);
  });

  it("offers Telegram only with both of the bot's settings, names the missing one, and never echoes the token", () => {
    const token = '7000000001:AAStandInBotTokenNotForProductionX';
    expect(telegramEnabled(loadConfig(valid))).toBe(false);
    expect(telegramEnabled(loadConfig({ ...valid, TELEGRAM_BOT_TOKEN: token, TELEGRAM_BOT_USERNAME: 'scout_bot' }))).toBe(true);
    expect(problemsOf({ ...valid, TELEGRAM_BOT_TOKEN: token })).toEqual([
      'TELEGRAM_BOT_USERNAME is required when TELEGRAM_BOT_TOKEN is set (the Telegram channel needs both)',
    ]);
    const bad = problemsOf({ ...valid, TELEGRAM_BOT_TOKEN: 'not a token', TELEGRAM_BOT_USERNAME: '@scout' });
    expect(bad.map((p) => p.split(' ')[0]).sort()).toEqual(['TELEGRAM_BOT_TOKEN', 'TELEGRAM_BOT_USERNAME']);
    expect(bad.join(' ')).not.toContain('not a token');
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ ...valid, DIGEST_HOUR_UTC: '' }).DIGEST_HOUR_UTC).toBe(8);
  });

  it("requires Firestore credentials at start: the emulator, a service account, or the explicit opt-in to the platform's own", () => {
    const { FIREBASE_SERVICE_ACCOUNT: _platform, ...noCredentials } = valid;
    // Without any of them the Admin SDK starts anyway and fails every request with
    // "Could not load the default credentials": the start must name the variable instead.
    expect(problemsOf(noCredentials)).toEqual([expect.stringMatching(/^FIREBASE_SERVICE_ACCOUNT is required: .*platform/)]);
    expect(problemsOf({ ...noCredentials, FIREBASE_SERVICE_ACCOUNT: '' })).toHaveLength(1);
    // The retired opt-in is no longer read: alone it is no credentials at all, never a silent fallback.
    expect(problemsOf({ ...noCredentials, FIREBASE_USE_DEFAULT_CREDENTIALS: 'true' })).toEqual([
      expect.stringMatching(/^FIREBASE_SERVICE_ACCOUNT is required/),
    ]);

    const key = JSON.stringify({ private_key: '-----BEGIN PRIVATE KEY-----\n', client_email: 'scout@scout-prod.iam.gserviceaccount.com' });
    expect(loadConfig({ ...noCredentials, FIREBASE_SERVICE_ACCOUNT: key }).FIREBASE_SERVICE_ACCOUNT).toBe(key);
    expect(serviceAccountKey(key)).toBe(key);
    expect(loadConfig({ ...noCredentials, FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080' }).FIRESTORE_EMULATOR_HOST).toBe('127.0.0.1:8080');
    // `platform`: no key is handed to the Admin SDK, which then finds the platform's own credentials.
    expect(loadConfig({ ...noCredentials, FIREBASE_SERVICE_ACCOUNT: 'platform' }).FIREBASE_SERVICE_ACCOUNT).toBe(PLATFORM_CREDENTIALS);
    expect(serviceAccountKey(PLATFORM_CREDENTIALS)).toBeUndefined();
    expect(problemsOf({ ...noCredentials, FIREBASE_SERVICE_ACCOUNT: 'true' })).toEqual([
      expect.stringMatching(/^FIREBASE_SERVICE_ACCOUNT must be the service account key JSON, or platform/),
    ]);
  });

  it('rejects a service account key the Admin SDK would refuse at the first request, without echoing it', () => {
    const noEmail = JSON.stringify({ private_key: '-----BEGIN PRIVATE KEY-----\nMIIEsecretkeymaterial\n' });
    const problems = problemsOf({ ...valid, FIREBASE_SERVICE_ACCOUNT: noEmail });
    expect(problems).toEqual([
      'FIREBASE_SERVICE_ACCOUNT must be the service account key JSON, or platform where the platform provides Google credentials',
    ]);
    expect(problems.join('\n')).not.toContain('secretkeymaterial');
  });

  it('names the variables at fault, and only their names', () => {
    try {
      loadConfig({
        ...valid,
        CRON_SECRET: 'sk_live_hunter2',
        APP_URL: 'ftp://sk_live_hunter2@x',
        FIREBASE_SERVICE_ACCOUNT: undefined,
      });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).variables).toEqual(['CRON_SECRET', 'APP_URL', 'FIREBASE_SERVICE_ACCOUNT']);
      expect(JSON.stringify((error as ConfigError).variables)).not.toContain('hunter2');
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  describe('the AI verdict stage', () => {
    const ai = { AI_BASE_URL: 'https://api.openai.com/v1/', AI_API_KEY: 'sk-test-hunter2', AI_MODEL: 'gpt-4o-mini' };

    it('is off by default, with bounded limits', () => {
      const config = loadConfig(valid);
      expect(aiEnabled(config)).toBe(false);
      expect(config).toMatchObject({ AI_DAILY_TOKEN_BUDGET: 4_000_000 });
      // One posting per request: there is no batch size to set.
      expect(config).not.toHaveProperty('AI_MAX_POSTINGS_PER_CALL');
      expect(config.AI_BASE_URL).toBeUndefined();
      expect(config.AI_API_KEY).toBeUndefined();
      expect(config.AI_MODEL).toBeUndefined();
      // Empty values are unset: the .env.example lines as shipped leave it off.
      expect(aiEnabled(loadConfig({ ...valid, AI_BASE_URL: '', AI_API_KEY: '', AI_MODEL: '' }))).toBe(false);
    });

    it('is on with a base URL and a model; the key is optional (a local Ollama has none)', () => {
      const config = loadConfig({ ...valid, ...ai });
      expect(aiEnabled(config)).toBe(true);
      expect(config).toMatchObject({ AI_BASE_URL: 'https://api.openai.com/v1', AI_MODEL: 'gpt-4o-mini', AI_API_KEY: 'sk-test-hunter2' });
      const local = loadConfig({ ...valid, AI_BASE_URL: 'http://localhost:11434/v1', AI_MODEL: 'llama3.1:8b' });
      expect(aiEnabled(local)).toBe(true);
      expect(local.AI_API_KEY).toBeUndefined();
    });

    it('names the missing half of a partial setup, and never echoes the key', () => {
      expect(problemsOf({ ...valid, AI_API_KEY: ai.AI_API_KEY })).toEqual([
        'AI_BASE_URL is required when AI_API_KEY is set (the AI verdict stage needs both AI_BASE_URL and AI_MODEL)',
        'AI_MODEL is required when AI_API_KEY is set (the AI verdict stage needs both AI_BASE_URL and AI_MODEL)',
      ]);
      expect(problemsOf({ ...valid, AI_BASE_URL: ai.AI_BASE_URL, AI_API_KEY: ai.AI_API_KEY })).toEqual([
        'AI_MODEL is required when AI_BASE_URL and AI_API_KEY are set (the AI verdict stage needs both AI_BASE_URL and AI_MODEL)',
      ]);
      expect(problemsOf({ ...valid, AI_MODEL: ai.AI_MODEL })).toEqual([
        'AI_BASE_URL is required when AI_MODEL is set (the AI verdict stage needs both AI_BASE_URL and AI_MODEL)',
      ]);
      try {
        loadConfig({ ...valid, AI_API_KEY: 'sk live hunter2', AI_MODEL: ai.AI_MODEL });
        expect.unreachable();
      } catch (error) {
        expect((error as ConfigError).variables).toEqual(['AI_API_KEY', 'AI_BASE_URL']);
        expect((error as Error).message).not.toContain('hunter2');
      }
    });

    it('rejects malformed values and limits out of bounds, naming each', () => {
      const problems = problemsOf({
        ...valid,
        AI_BASE_URL: 'ftp://models.example.com',
        AI_MODEL: 'gpt 4o',
        AI_DAILY_TOKEN_BUDGET: '-1',
      });
      expect(problems).toEqual([
        'AI_BASE_URL must be an http(s) URL',
        'AI_MODEL must be a model name (no spaces, at most 200 characters)',
        'AI_DAILY_TOKEN_BUDGET must be at least 1000',
      ]);
      expect(problemsOf({ ...valid, AI_DAILY_TOKEN_BUDGET: '1000000001' })).toEqual(['AI_DAILY_TOKEN_BUDGET must be at most 1000000000']);
      expect(loadConfig({ ...valid, ...ai, AI_DAILY_TOKEN_BUDGET: '1000000000' })).toMatchObject({ AI_DAILY_TOKEN_BUDGET: 1_000_000_000 });
    });
  });
});
