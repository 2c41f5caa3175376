import type { Tuning } from '../../lib/runtime/config';
import { afterEach, describe, expect, it } from 'vitest';
import { InjectedCrash, type Failpoint } from '../../lib/runtime/failpoints';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { PROVIDER_KEY_WINDOW_MS } from '../../lib/outbox/send-rules';
import { checkDeliveries } from '../support/queue-checker';
import { expectBatchesWhole } from '../support/batches';

const NOW = '2026-11-30T06:00:00Z';
const SUBSCRIBERS = 150;
let h: Harness;

afterEach(async () => h.close());

async function setup(overrides: Record<string, string> = {}, tuning: Tuning = {}) {
  h = await createHarness(overrides, tuning);
  await Promise.all(Array.from({ length: SUBSCRIBERS }, (_, i) => h.subscribe({ email: `dev${i}@example.com`, keywords: ['react'] })));
  h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
}

async function statuses() {
  const rows = await h.db.collection('emails').get();
  const counts: Record<string, number> = {};
  for (const d of rows.docs) counts[d.get('status')] = (counts[d.get('status')] ?? 0) + 1;
  return counts;
}

const perRecipient = async () => {
  const counts = new Map<string, number>();
  for (const m of await h.inbox()) counts.set(m.to[0], (counts.get(m.to[0]) ?? 0) + 1);
  return counts;
};

describe('batch sends', () => {
  it('150 alerts go out in 2 provider requests of up to 100 emails, each email with its own unsubscribe headers', async () => {
    await setup();
    const res = await h.cron({ now: NOW });
    expect(res.body).toMatchObject({ instantEmails: SUBSCRIBERS, providerRequests: 2 });
    const inbox = await h.inbox();
    expect(inbox).toHaveLength(SUBSCRIBERS);
    expect(inbox.every((m) => m.batch && m.headers['List-Unsubscribe']?.startsWith('<http'))).toBe(true);
    expect(new Set(inbox.map((m) => m.to[0])).size).toBe(SUBSCRIBERS);
    expect(await statuses()).toEqual({ sent: SUBSCRIBERS });
  });

  it('SEND_BATCH_SIZE=1 sends one request per email (the baseline the batch is measured against)', async () => {
    await setup({}, { SEND_BATCH_SIZE: 1 });
    const res = await h.cron({ now: NOW });
    expect(res.body).toMatchObject({ instantEmails: SUBSCRIBERS, providerRequests: SUBSCRIBERS });
  });

  it('five dispatchers racing over the same 150 pending rows (lock defeated): each email goes out once, every send batch packed whole', async () => {
    await setup();
    // The provider's quota hands every alert the run created back untried: 150 pending rows.
    await h.setFaults({ quotaExceeded: 'daily' });
    expect((await h.cron({ now: NOW })).body).toMatchObject({ instantEmails: 0, partial: true });
    await h.setFaults({});
    expect(await statuses()).toEqual({ pending: SUBSCRIBERS });

    const runs = await Promise.all(Array.from({ length: 5 }, (_, i) => h.run({ now: '2026-11-30T06:01:00Z', lockName: `defeated-${i}` })));
    expect(runs.reduce((n, r) => n + r.instantEmails, 0)).toBe(SUBSCRIBERS);
    const received = await perRecipient();
    expect(received.size).toBe(SUBSCRIBERS);
    expect([...received.values()].every((n) => n === 1)).toBe(true);
    expect(await statuses()).toEqual({ sent: SUBSCRIBERS });
    // Every send batch was packed whole: the rows carrying a batch key are exactly the members it was
    // packed with (the key is the hash of that list; a final row no longer keeps the list itself).
    expectBatchesWhole((await h.db.collection('emails').get()).docs);
  });

  it('a crash after the batch was accepted and before recording: the next run resends the same batch under its key, nobody gets two', async () => {
    await setup();
    let crashed = false;
    const crashOnce: Failpoint = async (name, ctx) => {
      if (name === 'before-record' && ctx?.emailKey?.startsWith('batch_') && !crashed) {
        crashed = true;
        throw new InjectedCrash(name);
      }
    };
    expect((await h.cron({ now: NOW }, { failpoint: crashOnce })).status).toBe(500);
    const after = await perRecipient();
    expect([...after.values()].every((n) => n === 1)).toBe(true);
    expect((await statuses()).sending).toBeGreaterThan(0);

    await h.cron({ now: '2026-11-30T06:15:00Z' });
    const final = await perRecipient();
    expect(final.size).toBe(SUBSCRIBERS);
    expect([...final.values()].every((n) => n === 1)).toBe(true);
    expect(await statuses()).toEqual({ sent: SUBSCRIBERS });
  });

  it('an ambiguous batch (accepted, connection dropped) is retried under the same key: one email each', async () => {
    await setup();
    await h.setFaults({ dropAfterAccept: 1 });
    await h.cron({ now: NOW });
    const final = await perRecipient();
    expect(final.size).toBe(SUBSCRIBERS);
    expect([...final.values()].every((n) => n === 1)).toBe(true);
    expect(await statuses()).toEqual({ sent: SUBSCRIBERS });
  });

  it('a batch refused as a whole (422) is dissolved; its emails then go out on their own', async () => {
    await setup();
    await h.setFaults({ failNext: { count: 1, status: 422, name: 'validation_error' } });
    await h.cron({ now: NOW });
    // The refused batch's members went back to `pending`, and the run's pass over pending rows sent them one by one.
    const alone = (await h.inbox()).filter((m) => !m.batch).length;
    expect(alone).toBeGreaterThan(0);
    expect(alone).toBeLessThan(SUBSCRIBERS);
    await h.cron({ now: '2026-11-30T06:15:00Z' });
    const final = await perRecipient();
    expect(final.size).toBe(SUBSCRIBERS);
    expect([...final.values()].every((n) => n === 1)).toBe(true);
    expect(await statuses()).toEqual({ sent: SUBSCRIBERS });
  });

  it('a digest batch accepted, its sender dead, recovered past the provider key window: each digest is sent again on its own (at-least-once), never lost', async () => {
    h = await createHarness();
    for (let i = 0; i < 3; i++) await h.subscribe({ email: `daily${i}@example.com`, keywords: ['react'], mode: 'daily' });
    h.serveFeed(postingsAbout('react', 2, { at: new Date(NOW) }));
    expect((await h.cron({ now: NOW })).body).toMatchObject({ queued: 6 });
    let crashed = false;
    const crashOnce: Failpoint = async (name, ctx) => {
      if (name === 'before-record' && ctx?.emailKey?.startsWith('batch_') && !crashed) {
        crashed = true;
        throw new InjectedCrash(name);
      }
    };
    expect((await h.cron({ now: '2026-11-30T08:05:00Z' }, { failpoint: crashOnce })).status).toBe(500);
    expect([...(await perRecipient()).values()]).toEqual([1, 1, 1]);

    // A day on, the batch key no longer protects anything (PROVIDER_KEY_WINDOW_MS): the batch is
    // dissolved and each digest goes out alone under its own key. docs/design.md §2.4 and §2.9 allow this
    // duplicate, and only past the window; the queue checker counts it apart (pastKeyWindow).
    await h.cron({ now: '2026-12-01T07:30:00Z' });
    expect([...(await perRecipient()).values()]).toEqual([2, 2, 2]);
    const rows = (await h.db.collection('emails').get()).docs;
    expect(rows.map((d) => d.get('status'))).toEqual(['sent', 'sent', 'sent']);
    for (const row of rows) {
      const gap = row.get('sentAt').toMillis() - row.get('firstAttemptAt').toMillis();
      expect(gap).toBeGreaterThan(PROVIDER_KEY_WINDOW_MS);
    }
    const report = await checkDeliveries(h.db, await h.inbox(), { lastRun: new Date('2026-12-01T07:30:00Z'), digestHourUtc: 8 });
    expect(report.digest).toMatchObject({ duplicated: 0, pastKeyWindow: 3, lost: 0 });
    expect(report.duplicatePostings).toEqual([]);
  });
});
