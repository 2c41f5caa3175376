import { afterEach, describe, expect, it } from 'vitest';
import { retryDeadEmail } from '../../lib/ops/retry-email';
import { providerIdempotencyKey } from '../../lib/outbox/outbox-row';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const NOW = '2026-11-30T06:00:00Z';
const NEXT_RUN = '2026-11-30T06:15:00Z';
const ADA = 'ada@example.com';
let h: Harness;

afterEach(async () => h.close());

/** One instant alert that the provider refused for good (422): a dead row. */
async function deadAlert(): Promise<string> {
  h = await createHarness({}, { SEND_MAX_ATTEMPTS: 3 });
  await h.subscribe({ email: ADA, keywords: ['react'] });
  h.serveFeed(postingsAbout('react', 2, { at: new Date(NOW) }));
  await h.setFaults({ failNext: { count: 1, status: 422, name: 'validation_error' } });
  await h.cron({ now: NOW });
  const rows = await h.db.collection('emails').get();
  expect(rows.docs.map((d) => d.get('status'))).toEqual(['dead']);
  expect(await h.inbox()).toHaveLength(0);
  return rows.docs[0].id;
}

const rowOf = async (key: string) => (await h.db.collection('emails').doc(key).get()).data()!;

describe('retrying a dead email', () => {
  it('puts it back to pending under the same key, and the next run sends it exactly once', async () => {
    const key = await deadAlert();
    const before = await rowOf(key);

    const result = await retryDeadEmail(h.db, { emailKey: key, now: new Date('2026-11-30T06:10:00Z') });

    expect(result).toMatchObject({ kind: 'retried', emailKey: key, retries: 1 });
    const after = await rowOf(key);
    expect(after).toMatchObject({ status: 'pending', attempts: 0, leaseUntil: null, lastError: null, retries: 1, batchKey: null });
    expect(after.payloadHash).toBe(before.payloadHash);
    expect(after.retryHistory).toEqual([{ at: expect.anything(), lastError: before.lastError, attempts: 1 }]);
    expect(after.retryHistory[0].lastError).toMatch(/422/);

    const run = await h.cron({ now: NEXT_RUN });
    expect(run.body.emailsSent).toBe(1);
    const inbox = await h.inbox(ADA);
    expect(inbox).toHaveLength(1);
    expect(inbox[0].idempotencyKey).toBe(providerIdempotencyKey(key));
    expect(await rowOf(key)).toMatchObject({ status: 'sent', attempts: 1 });
    expect((await h.deliveryOutcomes()).map((d) => d.status)).toEqual(['sent', 'sent']);

    await h.cron({ now: '2026-11-30T06:30:00Z' });
    expect(await h.inbox(ADA)).toHaveLength(1);
  });

  it('five concurrent retries of one row reset it once (the write is guarded by the version read)', async () => {
    const key = await deadAlert();
    const results = await Promise.all(Array.from({ length: 5 }, () => retryDeadEmail(h.db, { emailKey: key, now: new Date(NEXT_RUN) })));

    expect(results.filter((r) => r.kind === 'retried')).toHaveLength(1);
    // The others lost the race at the write, or read the row already pending: either way they wrote nothing.
    for (const r of results.filter((r) => r.kind !== 'retried')) expect(['lost-race', 'refused']).toContain(r.kind);
    const row = await rowOf(key);
    expect(row.retries).toBe(1);
    expect(row.retryHistory).toHaveLength(1);

    await h.cron({ now: NEXT_RUN });
    expect(await h.inbox(ADA)).toHaveLength(1);
  });

  it('refuses a row that is not dead, and one that does not exist, without writing', async () => {
    const key = await deadAlert();
    await retryDeadEmail(h.db, { emailKey: key, now: new Date(NEXT_RUN) });
    await h.cron({ now: NEXT_RUN });
    const sent = await h.db.collection('emails').doc(key).get();
    expect(sent.get('status')).toBe('sent');

    expect(await retryDeadEmail(h.db, { emailKey: key, now: new Date(NEXT_RUN) })).toEqual({ kind: 'refused', status: 'sent' });
    expect((await h.db.collection('emails').doc(key).get()).updateTime!.isEqual(sent.updateTime!)).toBe(true);

    await h.db.collection('emails').doc(key).update({ status: 'failed', lastError: 'unknown_outcome' });
    expect(await retryDeadEmail(h.db, { emailKey: key, now: new Date(NEXT_RUN) })).toEqual({ kind: 'refused', status: 'failed' });
    expect(await retryDeadEmail(h.db, { emailKey: 'alert_nobody_x', now: new Date(NEXT_RUN) })).toEqual({ kind: 'not-found' });
    expect(await h.inbox(ADA)).toHaveLength(1);
  });

  it('opt-outs still win: a retried email to someone who paused meanwhile is skipped, not sent', async () => {
    const key = await deadAlert();
    await retryDeadEmail(h.db, { emailKey: key, now: new Date(NEXT_RUN) });
    await h.db
      .collection('users')
      .doc((await rowOf(key)).uid)
      .update({ status: 'paused' });
    await h.cron({ now: NEXT_RUN });
    expect(await h.inbox(ADA)).toHaveLength(0);
    expect((await rowOf(key)).status).toBe('skipped');
  });

  it('a row that died inside a provider batch is resent on its own, under its own key', async () => {
    h = await createHarness({}, { SEND_MAX_ATTEMPTS: 1 });
    await h.subscribe({ email: ADA, keywords: ['react'] });
    await h.subscribe({ email: 'bea@example.com', keywords: ['react'] });
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    await h.setFaults({ failNext: { count: 1, status: 429, name: 'rate_limit_exceeded' } });
    await h.cron({ now: NOW });
    const dead = (await h.db.collection('emails').get()).docs;
    expect(dead.map((d) => [d.get('status'), typeof d.get('batchKey')])).toEqual([
      ['dead', 'string'],
      ['dead', 'string'],
    ]);

    for (const doc of dead) expect((await retryDeadEmail(h.db, { emailKey: doc.id, now: new Date(NEXT_RUN) })).kind).toBe('retried');
    await h.cron({ now: NEXT_RUN });

    const inbox = await h.inbox();
    expect(inbox.map((m) => [m.idempotencyKey, m.batch]).sort()).toEqual(dead.map((d) => [providerIdempotencyKey(d.id), false]).sort());
    for (const doc of dead) expect((await rowOf(doc.id)).status).toBe('sent');
  });
});
