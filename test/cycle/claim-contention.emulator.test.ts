import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentReference, Firestore } from 'firebase-admin/firestore';
import type { Failpoint } from '../../lib/runtime/failpoints';
import { runCycle } from '../../lib/cycle/run-cycle';
import { readDashboard } from '../../lib/ops/read-dashboard';
import { createHarness, type Harness } from '../support/harness';
import type { TestItem } from '../../scripts/sample-feed/rss-feed';

let h: Harness;
const DANA = 'dana@example.com';
const ANN = 'ann@example.com';

beforeEach(async () => {
  h = await createHarness();
  await h.subscribe({ email: DANA, keywords: ['python'], mode: 'daily' });
  await h.subscribe({ email: ANN, keywords: ['python'], mode: 'instant' });
});
afterEach(async () => h.close());

const posting = (guid: string, at: string): TestItem => ({
  guid,
  title: `Python developer ${guid}`,
  link: `https://jobs.example.com/${guid}`,
  description: 'Python.',
  pubDate: new Date(at).toUTCString(),
});

/**
 * A concurrent writer that, just before each commit of the armed step, creates the very documents
 * that step is about to create (the pairs of pending postings; today's digest rows), and removes
 * them again before the step's next read. Every create() of that step loses its race on the real
 * emulator, round after round, and no round ever sees the pair or the digest as taken.
 */
function contendOn(step: 'before-delivery-commit' | 'before-digest-commit'): Failpoint {
  const planted: DocumentReference[] = [];
  const getAll = h.db.getAll.bind(h.db);
  h.db.getAll = async (...args: Parameters<Firestore['getAll']>) => {
    await Promise.all(planted.splice(0).map((ref) => ref.delete()));
    return getAll(...args);
  };
  return async (name) => {
    if (name !== step) return;
    const users = (await h.db.collection('users').get()).docs.map((d) => d.id);
    if (step === 'before-delivery-commit') {
      const pending = (await h.db.collection('jobs').where('matchState', '==', 'pending').get()).docs.map((d) => d.id);
      for (const uid of users) for (const jobId of pending) planted.push(h.db.collection('deliveries').doc(`${uid}_${jobId}`));
    } else {
      for (const uid of users) planted.push(h.db.collection('emails').doc(`digest_${uid}_2026-11-30`));
    }
    await Promise.all(planted.map((ref) => ref.set({ contender: true })));
  };
}

async function runLogged(now: string, failpoint: Failpoint) {
  const lines: { event: string; fields: Record<string, unknown> }[] = [];
  const result = await runCycle(
    { ...h.deps, failpoint, log: (event, fields = {}) => void lines.push({ event, fields }) },
    { now: new Date(now), dryRun: false, trigger: 'test' },
  );
  if (result.kind !== 'ran') throw new Error(`expected a run, got ${result.kind}`);
  return { result, lines };
}

describe('a claim that keeps losing races gives up visibly, and the next run claims what it left', () => {
  it('delivery claims: logged, counted, run partial, the postings stay pending; the next run delivers each once', async () => {
    h.serveFeed([posting('a', '2026-11-30T05:00:00Z')]);
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    h.serveFeed([posting('a', '2026-11-30T05:00:00Z'), posting('b', '2026-11-30T06:30:00Z')]);

    const { result, lines } = await runLogged('2026-11-30T07:00:00Z', contendOn('before-delivery-commit'));
    expect(result).toMatchObject({ kind: 'ran', partial: true, claimsGivenUp: { deliveries: 2, digests: 0 } });
    expect(result.errors).toEqual([]);
    expect(lines.filter((l) => l.event === 'claim.gave_up')).toEqual([
      { event: 'claim.gave_up', fields: { runId: result.runId, step: 'deliveries', subscribers: 2 } },
    ]);
    expect((await h.db.collection('runs').doc(result.runId).get()).get('status')).toBe('partial');
    const dashboard = await readDashboard(h.db, { now: new Date('2026-11-30T07:01:00Z'), digestHourUtc: h.config.DIGEST_HOUR_UTC });
    expect(dashboard.claimsGivenUpRecent).toBe(2);
    expect(dashboard.runs.find((r) => r.runId === result.runId)).toMatchObject({ claimsGivenUp: 2, partial: true });
    expect((await h.db.collection('jobs').where('matchState', '==', 'pending').get()).size).toBe(1);

    expect((await h.cron({ now: '2026-11-30T07:15:00Z' })).body).toMatchObject({ instantDeliveries: 1, queued: 1, partial: false });
    expect((await h.cron({ now: '2026-11-30T08:05:00Z' })).body).toMatchObject({ digests: 1 });
    expect(await h.inbox(ANN)).toHaveLength(2);
    expect(await h.inbox(DANA)).toHaveLength(1);
  });

  it('digest claims: logged, counted, run partial; the next run sends the digest once', async () => {
    h.serveFeed([posting('a', '2026-11-30T05:00:00Z')]);
    await h.cron({ now: '2026-11-30T06:00:00Z' });

    const { result, lines } = await runLogged('2026-11-30T08:05:00Z', contendOn('before-digest-commit'));
    expect(result).toMatchObject({ kind: 'ran', partial: true, digests: 0, claimsGivenUp: { deliveries: 0, digests: 1 } });
    expect(lines.filter((l) => l.event === 'claim.gave_up')).toEqual([
      { event: 'claim.gave_up', fields: { runId: result.runId, step: 'digests', subscribers: 1 } },
    ]);
    expect(await h.inbox(DANA)).toHaveLength(0);
    expect(
      (await readDashboard(h.db, { now: new Date('2026-11-30T08:06:00Z'), digestHourUtc: h.config.DIGEST_HOUR_UTC })).claimsGivenUpRecent,
    ).toBe(1);

    expect((await h.cron({ now: '2026-11-30T08:20:00Z' })).body).toMatchObject({ digests: 1, partial: false });
    expect((await h.cron({ now: '2026-11-30T08:35:00Z' })).body).toMatchObject({ digests: 0 });
    expect(await h.inbox(DANA)).toHaveLength(1);
  });
});
