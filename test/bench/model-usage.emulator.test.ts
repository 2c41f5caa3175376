import type { Firestore } from 'firebase-admin/firestore';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createFirestore } from '../../lib/store/firestore';
import { createTokenReservation } from '../../lib/verdicts/ai-usage';
import { sumModelTokens } from '../../scripts/bench/model-usage';

let n = 0;
const freshDb = (): Firestore => createFirestore({ projectId: `bench-model-usage-${Date.now()}-${process.pid}-${++n}` });

beforeAll(() => {
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  process.env.METADATA_SERVER_DETECTION = 'none';
});

describe('bench --ai: tokens from aiUsage', () => {
  it('adds up every day document exactly as the runs recorded them', async () => {
    const db = freshDb();
    const usage = (promptTokens: number, completionTokens: number) => ({ promptTokens, completionTokens, estimated: false });
    // Two days: the bench's runs are on ?now= days, and a cycle may name the day by the wall clock instead.
    const run = async (at: string, usages: ReturnType<typeof usage>[]) => {
      const tokens = createTokenReservation({
        db,
        runId: `run-${at}`,
        budget: 1_000_000,
        retentionDays: 30,
        clock: () => new Date(at),
        leaseMs: 600_000,
      });
      for (const u of usages) {
        expect(await tokens.canSpend()).toBe(true);
        tokens.spend(u);
      }
      await tokens.record();
    };
    await run('2026-11-30T06:00:00Z', [usage(100, 20)]);
    await run('2026-11-30T08:05:00Z', [usage(300, 40)]);
    await run('2026-12-01T00:00:00Z', [usage(7, 3), usage(0, 0)]);
    expect(await sumModelTokens(db)).toEqual({ total: 470, prompt: 407, completion: 63, calls: 4 });
  });

  it('reads zero for a run that asked the model nothing', async () => {
    expect(await sumModelTokens(freshDb())).toEqual({ total: 0, prompt: 0, completion: 0, calls: 0 });
  });
});
