import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { noFailpoints } from '../../lib/runtime/failpoints';
import { runCycle } from '../../lib/cycle/run-cycle';
import { claimCursorId } from '../../lib/claims/claim-cursor';
import { createHarness, type Harness } from '../support/harness';
import { leapingClock } from '../support/leaping-clock';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { SCHEMA_VERSION } from '../../lib/ledger/migrations/migrations';
import { storeAtSchemaVersion } from '../support/schema';

const NOW = new Date('2026-11-30T06:00:00Z');
let h: Harness;

beforeEach(async () => {
  h = await createHarness();
  for (const name of ['ada', 'bob', 'cyd']) await h.subscribe({ email: `${name}@example.com`, keywords: ['react'], mode: 'instant' });
  h.serveFeed(postingsAbout('react', 2, { at: NOW }));
});
afterEach(async () => h.close());

describe('the time budget', () => {
  it('a run out of time before its claims reports partial, closes no posting, and the next run claims and sends everything once', async () => {
    const stopped = await runCycle(
      { ...h.deps, wallClock: leapingClock(h.config.RUN_BUDGET_MS), failpoint: noFailpoints },
      { now: NOW, dryRun: false, trigger: 'test' },
    );
    expect(stopped).toMatchObject({ kind: 'ran', partial: true, instantEmails: 0, instantDeliveries: 0 });
    expect(await h.inbox()).toHaveLength(0);
    const postings = (await h.db.collection('jobs').get()).docs.map((d) => d.get('matchState'));
    expect(postings).toEqual(['pending', 'pending']);

    expect((await h.cron({ now: '2026-11-30T06:15:00Z' })).body).toMatchObject({ instantEmails: 3, partial: false });
    expect((await h.cron({ now: '2026-11-30T06:30:00Z' })).body).toMatchObject({ instantEmails: 0, instantDeliveries: 0 });
    const inbox = await h.inbox();
    expect(inbox.map((m) => m.to[0]).sort()).toEqual(['ada@example.com', 'bob@example.com', 'cyd@example.com']);
  });

  it('the resume point a stopped run left is kept while runs stop early and cleared by the run that reaches everybody', async () => {
    const cursor = h.db.collection('cursors').doc(claimCursorId(null));
    // The run that left the cursor stamped the store first, as every run on a fresh store does.
    await storeAtSchemaVersion(h.db, SCHEMA_VERSION);
    await cursor.set({ resumeAfter: 'some-uid', runId: 'earlier', at: NOW });
    await runCycle(
      { ...h.deps, wallClock: leapingClock(h.config.RUN_BUDGET_MS), failpoint: noFailpoints },
      { now: NOW, dryRun: false, trigger: 'test' },
    );
    expect((await cursor.get()).get('resumeAfter')).toBe('some-uid');
    expect((await h.cron({ now: '2026-11-30T06:15:00Z' })).body).toMatchObject({ instantEmails: 3, partial: false });
    expect((await cursor.get()).exists).toBe(false);
  });

  it('a run whose budget is spent before the 08:05 flush starts no due query and no outbox listing, reports partial, and the next run sends each digest once', async () => {
    for (const name of ['dee', 'eve']) await h.subscribe({ email: `${name}@example.com`, keywords: ['react'], mode: 'daily' });
    expect((await h.cron({ now: '2026-11-30T06:00:00Z' })).body).toMatchObject({ instantEmails: 3, queued: 4, partial: false });
    const queries: string[] = [];
    const db = new Proxy(h.db, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== 'collection') return typeof value === 'function' ? value.bind(target) : value;
        return (path: string) => {
          if (path === 'deliveries' || path === 'outbox') queries.push(path);
          return target.collection(path);
        };
      },
    });

    const stopped = await runCycle(
      { ...h.deps, db, wallClock: leapingClock(h.config.RUN_BUDGET_MS), failpoint: noFailpoints },
      { now: new Date('2026-11-30T08:05:00Z'), dryRun: false, trigger: 'test' },
    );
    expect(stopped).toMatchObject({ kind: 'ran', partial: true, digests: 0 });
    expect(queries).toEqual([]);

    expect((await h.cron({ now: '2026-11-30T08:20:00Z' })).body).toMatchObject({ digests: 2, partial: false });
    expect((await h.cron({ now: '2026-11-30T08:35:00Z' })).body).toMatchObject({ digests: 0 });
    const digests = (await h.inbox()).filter((m) => ['dee@example.com', 'eve@example.com'].includes(m.to[0]));
    expect(digests.map((m) => m.to[0]).sort()).toEqual(['dee@example.com', 'eve@example.com']);
  });
});
