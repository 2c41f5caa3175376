import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    env: { METADATA_SERVER_DETECTION: 'none' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
