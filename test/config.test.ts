import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../lib/config';

const valid = {
  CRON_SECRET: 'c'.repeat(24),
  LINK_SECRET: 'l'.repeat(24),
  ADMIN_SECRET: 'a'.repeat(24),
  APP_URL: 'https://scout.example.com/',
  MAIL_FROM: 'Scout <alerts@scout.example.com>',
  RESEND_API_KEY: 're_123',
  FIREBASE_PROJECT_ID: 'scout-prod',
  FEED_URLS: 'https://jobs.example.com/rss',
};

describe('configuration', () => {
  it('applies the documented defaults', () => {
    expect(loadConfig(valid)).toMatchObject({
      APP_URL: 'https://scout.example.com',
      CRON_ALLOW_QUERY_SECRET: false,
      ALLOW_CLOCK_OVERRIDE: false,
      DIGEST_HOUR_UTC: 8,
      DIGEST_MAX_ITEMS: 20,
      LOCK_TTL_MS: 600_000,
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

  it('refuses FEED_ALLOW_PRIVATE_ADDRESSES in production (NODE_ENV=production without the emulator), naming it', () => {
    const production = { ...valid, NODE_ENV: 'production', FEED_ALLOW_PRIVATE_ADDRESSES: 'true' };
    expect(() => loadConfig(production)).toThrow(ConfigError);
    expect(() => loadConfig(production)).toThrow(/FEED_ALLOW_PRIVATE_ADDRESSES/);
    expect(loadConfig({ ...production, FEED_ALLOW_PRIVATE_ADDRESSES: 'false' }).FEED_ALLOW_PRIVATE_ADDRESSES).toBe(false);
    // The local stack and the tests run `next start` (NODE_ENV=production) against the emulator.
    expect(loadConfig({ ...production, FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080' }).FEED_ALLOW_PRIVATE_ADDRESSES).toBe(true);
    expect(loadConfig({ ...production, NODE_ENV: 'development' }).FEED_ALLOW_PRIVATE_ADDRESSES).toBe(true);
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ ...valid, DIGEST_HOUR_UTC: '' }).DIGEST_HOUR_UTC).toBe(8);
  });
});
