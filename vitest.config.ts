import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    env: { METADATA_SERVER_DETECTION: 'none' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Test files share a worker's modules instead of each loading firebase-admin, gRPC, React and the
    // lib afresh: that load was half of the suite's time. Safe because no file leaves state behind for
    // the next: no module mocks or stubs, fake timers put back after each test, each harness on a
    // Firebase project and mail key of its own, the Firestore counter restored in afterAll, and the
    // environment variables tests set are the shared emulator's (the one file that points elsewhere
    // puts it back).
    isolate: false,
    // Most files wait on the emulator, the mail sink, `next build` or Chromium rather than compute:
    // a second worker fills those waits. Vitest's default on a 2-core machine is one worker.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
