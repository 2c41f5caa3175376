import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const setUser = async (email: string, fields: Record<string, unknown>) => {
  const [user] = (await h.db.collection('users').where('email', '==', email).get()).docs;
  await user.ref.update(fields);
};

/** The dry run's figures next to what a real run then did on the same data. */
async function previewThenRun(now: string) {
  const before = await h.dump();
  const preview = (await h.cron({ now, dryRun: '1' })).body;
  expect(await h.dump()).toEqual(before);
  const run = (await h.cron({ now })).body;
  return { preview: preview.wouldSend, run };
}

describe('the dry run reports what a real run on the same data then does', () => {
  it('alert caps, opt-outs and mode changes on due digests, and items found in the digest-hour run', async () => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    for (const name of ['bob', 'cid', 'dan', 'eve'])
      await h.subscribe({ email: `${name}@example.com`, keywords: ['react'], mode: 'daily' });
    h.serveFeed(postingsAbout('react', 3, { at: new Date('2026-11-30T06:00:00Z'), prefix: 'early' }));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    await setUser('cid@example.com', { status: 'paused' });
    await setUser('dan@example.com', { mode: 'instant' });
    h.serveFeed([
      ...postingsAbout('react', 3, { at: new Date('2026-11-30T06:00:00Z'), prefix: 'early' }),
      ...postingsAbout('react', 30, { at: new Date('2026-11-30T08:00:00Z'), prefix: 'edge' }),
    ]);

    // ada and dan: 30 new each, 25 in the alert and 5 capped; bob and eve: 30 queued for today's
    // digest, which carries 20; cid (paused) and dan (now instant) get no digest.
    const morning = await previewThenRun('2026-11-30T08:01:00Z');
    expect(morning.preview).toMatchObject({ alerts: 2, alertItems: 50, alertItemsCapped: 10, queued: 60, digests: 2, digestItems: 40 });
    expect(morning.run).toMatchObject({
      instantEmails: morning.preview.alerts,
      instantDeliveries: morning.preview.alertItems,
      queued: morning.preview.queued,
      digests: morning.preview.digests,
    });

    // After today's digest was claimed, new items are queued for tomorrow: no digest now.
    h.serveFeed(postingsAbout('react', 2, { at: new Date('2026-11-30T09:00:00Z'), prefix: 'late' }));
    const later = await previewThenRun('2026-11-30T09:00:00Z');
    expect(later.preview).toMatchObject({ alerts: 2, alertItems: 4, alertItemsCapped: 0, queued: 4, digests: 0, digestItems: 0 });
    expect(later.run).toMatchObject({ instantDeliveries: 4, queued: 4, digests: 0 });
  });
});
