import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const NOW = '2026-11-30T06:00:00Z';
let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

describe('run it twice', () => {
  it('the second run sends nothing, writes no new delivery and leaves the same state', async () => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    await h.subscribe({ email: 'bob@example.com', keywords: ['django'], mode: 'daily' });
    h.serveFeed([...postingsAbout('react', 3, { at: new Date(NOW) }), ...postingsAbout('django', 2, { at: new Date(NOW) })]);

    const first = await h.cron({ now: NOW });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ jobsNew: 5, matches: 5, instantEmails: 1, queued: 2, partial: false });
    const mail = await h.inbox();
    expect(mail).toHaveLength(1);
    expect(mail[0].to).toEqual(['ada@example.com']);
    const before = await h.dump(['jobs', 'deliveries', 'emails', 'users']);

    const second = await h.cron({ now: '2026-11-30T06:15:00Z' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ jobsNew: 0, matches: 0, instantEmails: 0, queued: 0, digests: 0, emailsSent: 0 });
    expect(await h.inbox()).toHaveLength(1);
    expect(await h.dump(['jobs', 'deliveries', 'emails', 'users'])).toEqual(before);
  });
});
