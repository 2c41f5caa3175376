import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InjectedCrash, type Failpoint, type FailpointName } from '../../lib/runtime/failpoints';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const T0 = new Date('2026-11-30T06:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000).toISOString();
let h: Harness;

const crashAt =
  (point: FailpointName): Failpoint =>
  async (name) => {
    if (name === point) throw new InjectedCrash(name);
  };

beforeEach(async () => {
  h = await createHarness();
  await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
  h.serveFeed(postingsAbout('react', 2, { at: T0 }));
});
afterEach(async () => h.close());

async function state() {
  const row = (await h.db.collection('emails').get()).docs[0];
  const deliveries = (await h.deliveryOutcomes()).map((d) => d.status);
  return { row: row?.get('status'), reason: row?.get('lastError'), deliveries };
}

describe('instant alerts are at-most-once', () => {
  it('the delivery and its outbox row exist, leased, before any send (crash right before the first send)', async () => {
    expect((await h.cron({ now: at(0) }, { failpoint: crashAt('before-send') })).status).toBe(500);
    expect(await h.inbox()).toHaveLength(0);
    // The claim created the row leased to its run (run-sender.ts): `sending`, as if a send may have started.
    expect(await state()).toEqual({ row: 'sending', reason: null, deliveries: ['sending', 'sending'] });
    // Inside the provider's key window the next run may send it, once, under the same key.
    await h.cron({ now: at(15) });
    await h.cron({ now: at(30) });
    expect(await h.inbox()).toHaveLength(1);
    expect((await state()).deliveries).toEqual(['sent', 'sent']);
  });

  it('crash after leasing, before the send: nothing is sent while the lease lives; after it, one send under the same key', async () => {
    expect((await h.cron({ now: at(0) }, { failpoint: crashAt('before-send') })).status).toBe(500);
    expect((await state()).row).toBe('sending');
    await h.cron({ now: at(1) });
    expect(await h.inbox()).toHaveLength(0);
    await h.cron({ now: at(15) });
    await h.cron({ now: at(30) });
    expect(await h.inbox()).toHaveLength(1);
  });

  it('crash after the send, before recording it: the retry reuses the key inside the provider window and no second email arrives', async () => {
    expect((await h.cron({ now: at(0) }, { failpoint: crashAt('after-send') })).status).toBe(500);
    expect(await h.inbox()).toHaveLength(1);
    expect((await state()).row).toBe('sending');
    await h.cron({ now: at(15) });
    await h.cron({ now: at(30) });
    expect(await h.inbox()).toHaveLength(1);
    expect(await state()).toMatchObject({ row: 'sent', deliveries: ['sent', 'sent'] });
  });

  it('outside the provider key window an unfinished alert is given up as failed (unknown_outcome), never resent', async () => {
    expect((await h.cron({ now: at(0) }, { failpoint: crashAt('after-send') })).status).toBe(500);
    expect(await h.inbox()).toHaveLength(1);
    const next = await h.cron({ now: at(25 * 60) });
    expect(next.body.failures).toBe(1);
    expect(await h.inbox()).toHaveLength(1);
    expect(await state()).toEqual({ row: 'failed', reason: 'unknown_outcome', deliveries: ['failed', 'failed'] });
    await h.cron({ now: at(26 * 60) });
    expect(await h.inbox()).toHaveLength(1);
  });

  it('a crash before the send and a restart after the key window loses the alert visibly: zero received, row failed', async () => {
    expect((await h.cron({ now: at(0) }, { failpoint: crashAt('before-send') })).status).toBe(500);
    await h.cron({ now: at(25 * 60) });
    expect(await h.inbox()).toHaveLength(0);
    expect(await state()).toEqual({ row: 'failed', reason: 'unknown_outcome', deliveries: ['failed', 'failed'] });
  });

  it('opt-outs win: unsubscribing between the claim and the send skips the email', async () => {
    await h.cron({ now: at(0) }, { failpoint: crashAt('before-send') });
    const user = (await h.db.collection('users').get()).docs[0];
    await user.ref.update({ status: 'unsubscribed' });
    await h.cron({ now: at(15) });
    expect(await h.inbox()).toHaveLength(0);
    expect(await state()).toEqual({ row: 'skipped', reason: 'subscriber_unsubscribed', deliveries: ['skipped', 'skipped'] });
  });
});

describe('a delivery whose outbox row is gone', () => {
  it('reads as failed (orphaned) and is never resent: sends come only from rows', async () => {
    await h.cron({ now: at(0) }, { failpoint: crashAt('before-send') });
    const row = (await h.db.collection('emails').get()).docs[0];
    await row.ref.delete(); // e.g. removed by hand
    await h.cron({ now: at(15) });
    await h.cron({ now: at(90) });
    expect(await h.inbox()).toHaveLength(0);
    const deliveries = (await h.deliveryOutcomes()).map((d) => [d.status, d.reason]);
    expect(deliveries).toEqual([
      ['failed', 'orphaned_without_outbox_row'],
      ['failed', 'orphaned_without_outbox_row'],
    ]);
  });
});
