import { describe, expect, it } from 'vitest';
import { providerQuotaNotice, quotaNoticeText, type RunQuotaView } from '../../lib/ops/provider-quota';

const quota = {
  period: 'daily' as const,
  reachedAt: new Date('2026-11-30T08:00:03Z'),
  resumesAt: new Date('2026-12-01T00:00:00Z'),
  error: '429 daily_quota_exceeded',
};
const run = (runId: string, emailsSent: number, hit = false): RunQuotaView => ({ runId, emailsSent, quota: hit ? quota : null });

describe('whether the provider quota still stops sending, from the newest runs', () => {
  it.each<[string, RunQuotaView[], string | null]>([
    ['no runs', [], null],
    ['the newest run met the quota', [run('r3', 0, true), run('r2', 9)], 'r3'],
    ['runs with nothing to send since say nothing', [run('r4', 0), run('r3', 0), run('r2', 2, true), run('r1', 9)], 'r2'],
    ['a run that got emails out since has cleared it', [run('r4', 1), run('r3', 0, true)], null],
    ['a run that sent some, then met the quota, still reports it', [run('r2', 5, true)], 'r2'],
    ['only quiet runs', [run('r2', 0), run('r1', 0)], null],
  ])('%s', (_name, runs, expected) => {
    expect(providerQuotaNotice(runs)?.runId ?? null).toBe(expected);
  });

  it('reads as the operator is told it', () => {
    expect(quotaNoticeText(quota)).toBe('provider quota reached; sending resumes at 2026-12-01T00:00:00.000Z');
  });
});
