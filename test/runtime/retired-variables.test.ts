import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../instrumentation';
import { loadConfig } from '../../lib/runtime/config';
import { RETIRED_VARIABLE_NAMES, retiredVariableWarnings } from '../../lib/runtime/retired-variables';

const valid = {
  CRON_SECRET: 'q7Vd0mX2LrT9bN4kWz8sYh1cJf6pGu3eAa5iOo/Ex+M=',
  LINK_SECRET: 'H3nK8wZt2RvB6yLq0dFj9sXc4mPg1uTe7aNi5oWr+Yk=',
  ADMIN_SECRET: 'Zb4Fq9Lm2Xw7Tc0Rk5Vd8Ns1Jh6Yg3Pe/Ua4Io2Ex9=',
  APP_URL: 'https://scout.example.com',
  MAIL_FROM: 'Scout <alerts@scout.example.com>',
  RESEND_API_KEY: 're_123',
  FIREBASE_PROJECT_ID: 'scout-prod',
  FEED_URLS: 'https://jobs.example.com/rss',
  FIREBASE_SERVICE_ACCOUNT: 'platform',
};

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('a retired variable still set', () => {
  it('is named in a warning saying it is no longer read and where it went, never with its value', () => {
    const warnings = retiredVariableWarnings({ SEND_CONCURRENCY: '7', UPWORK_CLIENT_SECRET: 'hunter2-secret', PATH: '/usr/bin' });
    expect(warnings).toEqual([
      'SEND_CONCURRENCY is set but no longer read (now the constant SEND_CONCURRENCY in lib/mail/send-limiter.ts); remove it',
      "UPWORK_CLIENT_SECRET is set but no longer read (now clientSecret in the upwork entry's params in SOURCES); remove it",
    ]);
    expect(warnings.join('\n')).not.toContain('hunter2');
    // An empty line of an old .env is not set.
    expect(retiredVariableWarnings({ LOCK_TTL_MS: '' })).toEqual([]);
  });

  it('names every retired variable, and none that Scout still reads', () => {
    const everyOne = Object.fromEntries(RETIRED_VARIABLE_NAMES.map((name) => [name, '1']));
    expect(retiredVariableWarnings(everyOne)).toHaveLength(RETIRED_VARIABLE_NAMES.length);
    expect(retiredVariableWarnings(valid)).toEqual([]);
  });

  it('never stops the app: the configuration loads, and the value is not read', () => {
    const config = loadConfig({ ...valid, SEND_CONCURRENCY: '50', LOCK_TTL_MS: 'not a number', AI_TIMEOUT_MS: '1' });
    expect(config).not.toHaveProperty('SEND_CONCURRENCY');
    expect(config).not.toHaveProperty('LOCK_TTL_MS');
    expect(config.tuning).toBeUndefined();
  });

  it('is warned about as the server starts (instrumentation.ts), and the start goes on', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    for (const [name, value] of Object.entries({ ...valid, NEXT_RUNTIME: 'nodejs', SEND_MAX_ATTEMPTS: '9' })) vi.stubEnv(name, value);
    await register();
    expect(warn).toHaveBeenCalledWith(
      'SEND_MAX_ATTEMPTS is set but no longer read (now the constant SEND_MAX_ATTEMPTS in lib/outbox/send-rules.ts); remove it',
    );
    expect(error).not.toHaveBeenCalled();
  });
});
