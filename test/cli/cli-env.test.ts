import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/runtime/config';
import { loadCliEnv } from '../../scripts/cli/cli-env';

const problems = (env: Record<string, string>) => {
  try {
    loadCliEnv(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('the CLI environment', () => {
  it('needs only the project id and the emulator host, not the whole app config', () => {
    expect(loadCliEnv({ FIREBASE_PROJECT_ID: 'scout-dev', FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080' })).toEqual({
      FIREBASE_PROJECT_ID: 'scout-dev',
      FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080',
      DIGEST_HOUR_UTC: 8,
    });
  });

  it("reads DIGEST_HOUR_UTC by the app's rule, for `scout status`'s digest hours", () => {
    expect(
      loadCliEnv({ FIREBASE_PROJECT_ID: 'scout-dev', FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080', DIGEST_HOUR_UTC: '6' }).DIGEST_HOUR_UTC,
    ).toBe(6);
    expect(problems({ FIREBASE_PROJECT_ID: 'scout-dev', FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080', DIGEST_HOUR_UTC: '24' })).toEqual([
      expect.stringMatching(/^DIGEST_HOUR_UTC/),
    ]);
  });

  it('accepts a service account instead of the emulator', () => {
    const key = JSON.stringify({ private_key: '-----BEGIN PRIVATE KEY-----\n', client_email: 'cli@scout.iam.gserviceaccount.com' });
    expect(loadCliEnv({ FIREBASE_PROJECT_ID: 'scout-prod', FIREBASE_SERVICE_ACCOUNT: key }).FIREBASE_SERVICE_ACCOUNT).toBe(key);
  });

  it('names each missing or bad variable', () => {
    expect(problems({ FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080' })).toEqual(['FIREBASE_PROJECT_ID is required']);
    expect(problems({ FIREBASE_PROJECT_ID: 'scout-dev', FIRESTORE_EMULATOR_HOST: '' })).toEqual([
      expect.stringMatching(/^FIREBASE_SERVICE_ACCOUNT is required/),
    ]);
    expect(problems({ FIREBASE_PROJECT_ID: 'Scout Dev', FIRESTORE_EMULATOR_HOST: 'localhost' })).toEqual([
      expect.stringMatching(/^FIREBASE_PROJECT_ID must be a Firebase project id/),
      'FIRESTORE_EMULATOR_HOST must be host:port',
    ]);
  });

  it("applies the app's credentials rule: the same opt-in, the same message", () => {
    expect(loadCliEnv({ FIREBASE_PROJECT_ID: 'scout-prod', FIREBASE_SERVICE_ACCOUNT: 'platform' }).FIREBASE_SERVICE_ACCOUNT).toBe(
      'platform',
    );
    const app = (() => {
      try {
        loadConfig({ FIREBASE_PROJECT_ID: 'scout-prod' });
      } catch (error) {
        return (error as ConfigError).problems.filter((p) => p.startsWith('FIREBASE_SERVICE_ACCOUNT'));
      }
      return [];
    })();
    expect(problems({ FIREBASE_PROJECT_ID: 'scout-prod' })).toEqual(app);
  });
});
