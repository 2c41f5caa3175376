import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleCronRequest } from '../../../lib/cron/handle-cron-request';
import { upworkSampleKind } from '../../../scripts/sample-feed/kinds/upwork';
import { createHarness, type Harness } from '../../support/harness';

const NOW = '2026-11-30T06:00:00Z';
let h: Harness;

beforeEach(async () => {
  // The harness's sample server carries the local stack's Upwork fake; the sample entry carries its credentials.
  h = await createHarness();
});
afterEach(async () => h.close());

describe('upwork in the cycle', () => {
  it("a subscriber gets an alert for an Upwork job read through the sample server's fake, token flow and all", async () => {
    await h.subscribe({ email: 'maya@example.com', keywords: ['next.js'], mode: 'instant', minBudget: 500 });
    // The local stack's own SOURCES entry for the kind, as npm run demo uses it.
    const config = { ...h.config, SOURCES: JSON.stringify([upworkSampleKind.entry(h.feeds.url)]) };
    const cron = async () => {
      const response = await handleCronRequest(
        new Request(`http://localhost/api/cron?now=${NOW}`, { headers: { authorization: `Bearer ${h.config.CRON_SECRET}` } }),
        { ...h.deps, config },
      );
      return { status: response.status, body: await response.json() };
    };

    const first = await cron();

    expect(first.status).toBe(200);
    expect(first.body.feeds).toContainEqual(expect.objectContaining({ source: 'upwork-sample', status: 'ok', postings: 5 }));
    expect(first.body.jobsNew).toBe(5);
    expect(first.body.instantEmails).toBe(1);
    const [mail] = await h.inbox('maya@example.com');
    expect(mail.subject).toMatch(/^1 new: Next\.js developer to finish a booking dashboard( at |, |$)/);
    expect(mail.html).toContain('https://www.upwork.com/jobs/~021841203379554062337');
    expect(mail.text).toContain('Next.js developer to finish a booking dashboard');
    expect((await h.db.collection('feeds').doc('upwork-sample').get()).get('label')).toBe('Upwork · developer');

    // Run it twice: the stored token is used, nothing new, nothing sent again.
    const tokenRequests = () => h.feeds.requests().filter((request) => request.path === '/api/v3/oauth2/token').length;
    expect(tokenRequests()).toBe(1);
    const second = await cron();
    expect(second.body.instantEmails).toBe(0);
    expect(tokenRequests()).toBe(1);
    expect(await h.inbox('maya@example.com')).toHaveLength(1);
  });
});
