import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const NOW = '2026-11-30T06:00:00Z';
let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

async function seed(subscribers: number) {
  const emails: string[] = [];
  for (let i = 0; i < subscribers; i++) {
    const email = `dev${i}@example.com`;
    emails.push(email);
    await h.subscribe({ email, keywords: i % 2 === 0 ? ['react'] : ['react', 'firestore'], mode: 'instant' });
  }
  h.serveFeed([...postingsAbout('react', 4, { at: new Date(NOW) }), ...postingsAbout('firestore', 3, { at: new Date(NOW) })]);
  return emails;
}

async function expectOneEmailEach(emails: string[]) {
  const inbox = await h.inbox();
  for (const email of emails)
    expect(
      inbox.filter((m) => m.to.includes(email)),
      email,
    ).toHaveLength(1);
  expect(inbox).toHaveLength(emails.length);
}

describe.each([2, 8])('%i concurrent invocations on fresh postings', (n) => {
  it('through the endpoint: one runs, the rest skip, every subscriber gets exactly one email', async () => {
    const emails = await seed(6);
    const results = await Promise.all(Array.from({ length: n }, () => h.cron({ now: NOW })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const ran = results.filter((r) => typeof r.body.skipped !== 'string');
    expect(ran.length).toBeGreaterThanOrEqual(1);
    await expectOneEmailEach(emails);
  });

  it('with the lock defeated (each under its own lock), the ledger alone keeps one email per subscriber and one delivery per pair', async () => {
    const emails = await seed(6);
    const results = await Promise.all(Array.from({ length: n }, (_, i) => h.run({ now: NOW, lockName: `defeated-${i}` })));
    expect(results.every((r) => r.kind === 'ran')).toBe(true);
    await expectOneEmailEach(emails);

    const deliveries = await h.deliveryOutcomes();
    // 3 subscribers match 4 react postings; 3 match 4 react + 3 firestore postings.
    expect(deliveries).toHaveLength(3 * 4 + 3 * 7);
    expect(new Set(deliveries.map((d) => `${d.uid}_${d.jobId}`)).size).toBe(3 * 4 + 3 * 7);
    expect(deliveries.every((d) => d.status === 'sent')).toBe(true);
    const claimedBy = new Set(deliveries.map((d) => d.runId));
    expect(claimedBy.size).toBeGreaterThanOrEqual(1);
    const emailsRows = await h.db.collection('emails').get();
    expect(emailsRows.size).toBe(6);
    expect(results.reduce((sum, r) => sum + r.instantEmails, 0)).toBe(6);
  });
});
