import { noFailpoints } from '../../lib/runtime/failpoints';
import type { Shard } from '../../lib/runtime/shard';
import { createSendLimiter } from '../../lib/mail/send-limiter';
import { dispatchOutbox } from '../../lib/outbox/dispatch-outbox';
import { createQuotaPause } from '../../lib/outbox/quota-pause';
import type { Harness } from './harness';

/** The cron's dispatch step alone, on the harness's store and sink, at `at`, with no time budget and no faults. */
export const dispatchAt = (
  h: Harness,
  at: string,
  input: { runId?: string; batchSize: number; pendingPageSize?: number; shard?: Shard },
) => {
  const runId = input.runId ?? 'dispatch-test';
  return dispatchOutbox(
    {
      db: h.db,
      mailer: h.deps.mailer,
      limiter: createSendLimiter({ ratePerSec: 200, concurrency: 4, sleep: h.deps.sleep }),
      failpoint: noFailpoints,
      clock: () => new Date(at),
      sleep: h.deps.sleep,
      outOfTime: () => false,
      log: () => {},
      runId,
      quota: createQuotaPause(),
    },
    { maxAttempts: 3, ...input, runId },
  );
};
