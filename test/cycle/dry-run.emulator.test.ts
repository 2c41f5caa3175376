import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness';
import { updateSubscriber } from '../support/subscribers';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { MAX_ALERT_ITEMS } from '../../lib/claims/claim-deliveries';

let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const setUser = async (email: string, fields: Record<string, unknown>) => updateSubscriber(h.db, subscriberId(email), fields);

/** Items listed by the digest rows a run claimed: what its digests carry. */
async function digestItemsOf(runId: string) {
  const rows = await h.db.collection('emails').where('kind', '==', 'digest').where('runId', '==', runId).get();
  return rows.docs.reduce((sum, d) => sum + (d.get('deliveryIds') as string[]).length, 0);
}

/**
 * The dry run's figures next to what a real run then did on the same data: the dry run writes
 * nothing, and each figure it reports is the one the run then reports.
 */
async function dryRunThenRun(now: string) {
  const before = await h.dump();
  const dry = (await h.cron({ now, dryRun: '1' })).body;
  expect(await h.dump()).toEqual(before);
  const run = (await h.cron({ now })).body;
  const w = dry.wouldSend;
  expect({
    matches: dry.matches,
    users: dry.users,
    instantEmails: w.alerts,
    instantDeliveries: w.alertItems,
    queued: w.queued,
    digests: w.digests,
    digestItems: w.digestItems,
  }).toEqual({
    matches: run.matches,
    users: run.users,
    instantEmails: run.instantEmails,
    instantDeliveries: run.instantDeliveries,
    queued: run.queued,
    digests: run.digests,
    digestItems: await digestItemsOf(run.runId),
  });
  return { dryRun: w, run };
}

describe('the dry run reports what a real run on the same data then does', () => {
  it('alert caps, opt-outs and mode changes on due digests, and items found in the digest-hour run', async () => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    for (const name of ['bob', 'cid', 'dan', 'eve', 'fay'])
      await h.subscribe({ email: `${name}@example.com`, keywords: ['react'], mode: 'daily' });
    h.serveFeed(postingsAbout('react', 3, { at: new Date('2026-11-30T06:00:00Z'), prefix: 'early' }));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    // cid paused and fay unsubscribed with 3 items queued each for today's digest; dan switched to instant.
    await setUser('cid@example.com', { status: 'paused' });
    await setUser('fay@example.com', { status: 'unsubscribed' });
    await setUser('dan@example.com', { mode: 'instant' });
    h.serveFeed([
      ...postingsAbout('react', 3, { at: new Date('2026-11-30T06:00:00Z'), prefix: 'early' }),
      ...postingsAbout('react', 30, { at: new Date('2026-11-30T08:00:00Z'), prefix: 'edge' }),
    ]);

    // ada and dan: 30 new each, past MAX_ALERT_ITEMS: 25 in the alert and 5 capped; bob and eve:
    // 30 queued for today's digest, which carries 20; cid (paused), fay (unsubscribed) and dan
    // (now instant) get no digest for the items they had queued.
    expect(30).toBeGreaterThan(MAX_ALERT_ITEMS);
    const morning = await dryRunThenRun('2026-11-30T08:01:00Z');
    expect(morning.dryRun).toMatchObject({ alerts: 2, alertItems: 50, alertItemsCapped: 10, queued: 60, digests: 2, digestItems: 40 });
    expect(morning.run).toMatchObject({ matches: 4 * 30, users: 4 });

    // After today's digest was claimed, new items are queued for tomorrow: no digest now.
    h.serveFeed(postingsAbout('react', 2, { at: new Date('2026-11-30T09:00:00Z'), prefix: 'late' }));
    const later = await dryRunThenRun('2026-11-30T09:00:00Z');
    expect(later.dryRun).toMatchObject({ alerts: 2, alertItems: 4, alertItemsCapped: 0, queued: 4, digests: 0, digestItems: 0 });

    // Tomorrow's digest carries them.
    const tomorrow = await dryRunThenRun('2026-12-01T08:00:00Z');
    expect(tomorrow.dryRun).toMatchObject({ alerts: 0, queued: 0, digests: 2, digestItems: 4 });
  });

  it('a due digest of items queued by earlier runs only, and a subscriber whose digest a run already claimed today', async () => {
    for (const name of ['gus', 'hal', 'ivy']) await h.subscribe({ email: `${name}@example.com`, keywords: ['react'], mode: 'daily' });
    h.serveFeed(postingsAbout('react', 25, { at: new Date('2026-11-30T05:00:00Z'), prefix: 'night' }));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    await setUser('ivy@example.com', { status: 'unsubscribed' });
    const morning = await dryRunThenRun('2026-11-30T08:30:00Z');
    expect(morning.dryRun).toMatchObject({ queued: 0, digests: 2, digestItems: 40 });
    const again = await dryRunThenRun('2026-11-30T08:45:00Z');
    expect(again.dryRun).toMatchObject({ digests: 0, digestItems: 0 });
  });
});
