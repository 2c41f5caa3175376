import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneLedger } from '../../lib/ops/prune-ledger';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { unsubscribeUrl } from '../../lib/subscribers/link-token';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { createHarness, type Harness } from '../support/harness';
import { callConfirm, callUnsubscribe, linkIn, minutesAfter, postSignup } from './signup-fixture';

/**
 * Unconfirmed subscribers expire. A pending signup carries `expireAt` (7 days
 * after its last signup) for the TTL policy on `users`; every way out of pending removes it in the
 * same write, so the TTL can never delete a confirmed subscriber. `scout prune` does the same job
 * where there is no TTL.
 */
const T0 = new Date('2026-11-30T06:00:00Z');
const DAY = 24 * 60;
const at = (minutes: number) => minutesAfter(T0, minutes);
const PENDING_DAYS = 7;

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const doc = async (email: string) => (await h.db.collection('users').doc(subscriberId(email)).get()).data();
const expiry = async (email: string) => (await doc(email))?.expireAt?.toDate();
const signUp = (email: string, keywords: string, now: Date) => postSignup(h, { email, keywords, mode: 'daily' }, { now });
const confirmLink = async (email: string) => {
  const mails = (await h.inbox(email)).filter((m) => m.subject === 'Confirm your Scout subscription');
  return linkIn(mails.at(-1)!.text, h.config.APP_URL, '/confirm');
};

describe('a pending subscriber expires; a confirmed one never carries expireAt', () => {
  it('a signup sets expireAt 7 days on, a new signup moves it, confirming removes it with the nonce in the same write', async () => {
    await signUp('ada@example.com', 'react', at(0));
    expect(await expiry('ada@example.com')).toEqual(at(PENDING_DAYS * DAY));

    await signUp('ada@example.com', 'vue', at(3 * DAY));
    expect(await expiry('ada@example.com')).toEqual(at((3 + PENDING_DAYS) * DAY));

    expect((await callConfirm(h, 'POST', await confirmLink('ada@example.com'), at(3 * DAY + 5))).status).toBe(200);
    const active = await doc('ada@example.com');
    expect(active).toMatchObject({ status: 'active', keywords: ['vue'] });
    expect(active).not.toHaveProperty('expireAt');
    expect(active).not.toHaveProperty('signupNonce');
  });

  it('subscribers added by the operator never carry it, and one added while pending loses it', async () => {
    await h.subscribe({ email: 'bea@example.com', keywords: ['rust'] });
    expect(await doc('bea@example.com')).not.toHaveProperty('expireAt');

    await signUp('cy@example.com', 'go', at(0));
    expect(await expiry('cy@example.com')).toBeDefined();
    await addActiveSubscriber(h.db, { email: 'cy@example.com', keywords: ['go'] }, at(1));
    const cy = await doc('cy@example.com');
    expect(cy).toMatchObject({ status: 'active' });
    expect(cy).not.toHaveProperty('expireAt');
    expect(cy).not.toHaveProperty('signupNonce');
  });

  it('an address that unsubscribed keeps its record: unsubscribing removes expireAt, and an unconfirmed re-signup sets none', async () => {
    const uid = subscriberId('dee@example.com');
    await signUp('dee@example.com', 'react', at(0));
    const unsubscribe = unsubscribeUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: at(0) });
    await callUnsubscribe(h, unsubscribe, at(1));
    expect(await doc('dee@example.com')).toMatchObject({ status: 'unsubscribed' });
    expect(await doc('dee@example.com')).not.toHaveProperty('expireAt');
    expect(await doc('dee@example.com')).not.toHaveProperty('signupNonce');

    await signUp('dee@example.com', 'cobol', at(60));
    const pending = await doc('dee@example.com');
    expect(pending).toMatchObject({ status: 'pending', keywords: ['cobol'] });
    expect(pending).not.toHaveProperty('expireAt');
  });
});

describe('scout prune deletes expired pending subscribers, and nobody else', () => {
  it('deletes a pending subscriber past expireAt; keeps a confirmed one, an active one and a pending one not yet due', async () => {
    await signUp('old@example.com', 'react', at(0));
    await signUp('confirmed@example.com', 'react', at(0));
    await callConfirm(h, 'POST', await confirmLink('confirmed@example.com'), at(1));
    await h.subscribe({ email: 'active@example.com', keywords: ['react'] });
    await signUp('fresh@example.com', 'react', at(5 * DAY));

    const report = await pruneLedger(h.db, { now: at(PENDING_DAYS * DAY + 1), limit: 1_000 });
    expect(report.deleted.users).toBe(1);
    const left = (await h.db.collection('users').get()).docs.map((d) => d.id).sort();
    expect(left).toEqual(['confirmed@example.com', 'active@example.com', 'fresh@example.com'].map(subscriberId).sort());
  });

  it('keeps a document that expired but is not pending (an expireAt left behind by hand or by old code)', async () => {
    await h.subscribe({ email: 'stray@example.com', keywords: ['react'] });
    await h.db
      .collection('users')
      .doc(subscriberId('stray@example.com'))
      .update({ expireAt: at(0) });
    const report = await pruneLedger(h.db, { now: at(1), limit: 1_000 });
    expect(report).toMatchObject({ deleted: { users: 0 }, kept: { users: 1 } });
    expect(await doc('stray@example.com')).toMatchObject({ status: 'active' });
  });
});
