import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with one plain line, "Tests: N passed, N failed, N skipped", that any CI can read. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      const before = counts.failed;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
      // A file that failed outside its tests (an import, a beforeAll) leaves them skipped: count it
      // once, or the line would read "0 failed" for a run that failed.
      if (module.state() === 'failed' && counts.failed === before) counts.failed += 1;
    }
    process.stdout.write(`\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
