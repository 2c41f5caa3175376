import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FieldValue } from 'firebase-admin/firestore';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { setSubscriberStatus } from '../../lib/subscribers/set-subscriber-status';
import { changeStatus, updatePreferences } from '../../lib/subscriptions/preferences';
import { unsubscribeSubscriber } from '../../lib/subscriptions/unsubscribe';
import { confirmSubscription } from '../../lib/subscriptions/confirm';
import { welcomeSettingsOf } from '../../lib/subscriptions/welcome';
import { handleSignupRequest } from '../../lib/subscriptions/handle-signup-request';
import { revokeFeedUrl } from '../../lib/archive/revoke-feed-url';
import { confirmUrl, unsubscribeUrl } from '../../lib/subscribers/link-token';
import { subscriberId } from '../../lib/subscribers/subscriber';
import {
  decodeProfile,
  matchIndexShardOf,
  matchIndexShardRef,
  readActiveSubscribers,
  readIndexShards,
} from '../../lib/subscribers/match-index';
import { readRepairState, repairMatchIndex, sweepPages, SWEEP_RUNS } from '../../lib/subscribers/repair-match-index';
import { DEFAULT_MATCH_INDEX_SHARDS as K } from '../../lib/subscribers/match-index-layout';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';
import { indexDrift, indexEntries } from '../support/match-index';

const NOW = new Date('2026-11-30T06:00:00Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const token = (url: string) => new URL(url).searchParams.get('token');
const expectInStep = async () => {
  const { index, users } = await indexDrift(h.db);
  expect(index).toEqual(users);
};

describe('every writer of users/ keeps the match index in step, in the same write', () => {
  it('the CLI and import (create, then update), pause/resume from the CLI and from the preferences page, preferences, feed URL revocation, unsubscribe', async () => {
    const ada = (await addActiveSubscriber(h.db, { email: 'ada@example.com', keywords: ['react'], mode: 'daily' }, NOW)).id;
    const bob = (await addActiveSubscriber(h.db, { email: 'Bob@Example.com', keywords: ['go'], mode: 'instant' }, NOW)).id;
    await expectInStep();
    expect([...(await indexEntries(h.db)).keys()].sort()).toEqual([ada, bob].sort());

    await addActiveSubscriber(h.db, { email: 'ada@example.com', keywords: ['react', 'next.js'], excludes: ['php'], mode: 'weekly' }, at(1));
    await expectInStep();
    expect(decodeProfile(ada, (await indexEntries(h.db)).get(ada)!)).toMatchObject({
      keywords: ['react', 'next.js'],
      excludes: ['php'],
      mode: 'weekly',
    });

    await setSubscriberStatus(h.db, { email: 'bob@example.com', action: 'pause', now: at(2) });
    await expectInStep();
    expect((await indexEntries(h.db)).has(bob)).toBe(false);
    await changeStatus(h.db, { uid: bob, action: 'resume', now: at(3) });
    await expectInStep();
    expect((await indexEntries(h.db)).has(bob)).toBe(true);

    const saved = await updatePreferences(h.db, {
      uid: ada,
      input: {
        keywords: 'rust',
        excludes: '',
        minYearly: '90k',
        minCurrency: 'EUR',
        mode: 'daily',
        timezone: 'Europe/Berlin',
        digestHour: '9',
      },
      now: at(4),
      digestHourUtc: 8,
    });
    expect(saved).toMatchObject({ ok: true });
    await expectInStep();
    expect(decodeProfile(ada, (await indexEntries(h.db)).get(ada)!)).toMatchObject({
      keywords: ['rust'],
      minPay: { fixed: null, hourly: null, yearly: { amount: 90_000, currency: 'EUR' } },
      timezone: 'Europe/Berlin',
      digestHour: 9,
    });

    await revokeFeedUrl(h.db, { uid: ada, now: at(5) });
    await expectInStep();
    expect(decodeProfile(ada, (await indexEntries(h.db)).get(ada)!)?.feedTokenVersion).toBe(1);

    const link = unsubscribeUrl({ appUrl: h.config.APP_URL, uid: ada, secret: h.config.LINK_SECRET, issuedAt: at(6) });
    expect(await unsubscribeSubscriber(h.db, { token: token(link), secret: h.config.LINK_SECRET, now: at(6) })).toMatchObject({ ok: true });
    await expectInStep();
    expect([...(await indexEntries(h.db)).keys()]).toEqual([bob]);
  });

  it('a signup stays out of the index while pending (no index write at all) and enters it with the confirmation', async () => {
    const signup = await handleSignupRequest(
      new Request(`${h.config.APP_URL}/api/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'cy@example.com', keywords: 'django', mode: 'instant' }),
      }),
      { ...h.deps, now: NOW },
    );
    expect(signup.status).toBe(202);
    const uid = subscriberId('cy@example.com');
    expect((await h.db.collection('matchIndex').get()).size).toBe(0);

    const nonce = (await h.db.collection('users').doc(uid).get()).get('signupNonce');
    const link = confirmUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW, nonce });
    expect(
      await confirmSubscription(h.db, {
        token: token(link),
        secret: h.config.LINK_SECRET,
        now: at(1),
        runId: 'confirm-test',
        welcome: welcomeSettingsOf(h.config),
      }),
    ).toMatchObject({ ok: true });
    await expectInStep();
    expect(decodeProfile(uid, (await indexEntries(h.db)).get(uid)!)).toMatchObject({ email: 'cy@example.com', keywords: ['django'] });
  });
});

describe('writers sharing one index document', () => {
  it('40 subscribers of one shard, each changing their preferences at once, lose none of each other’s entries', async () => {
    const emails: string[] = [];
    for (let i = 0; emails.length < 40; i++)
      if (matchIndexShardOf(subscriberId(`u${i}@example.com`), K) === 3) emails.push(`u${i}@example.com`);
    await Promise.all(emails.map((email) => addActiveSubscriber(h.db, { email, keywords: ['react'] }, NOW)));
    await Promise.all(
      emails.map((email, i) =>
        updatePreferences(h.db, {
          uid: subscriberId(email),
          input: { keywords: `kw${i}`, excludes: '', minBudget: '', mode: i % 2 ? 'daily' : 'instant' },
          now: at(1),
          digestHourUtc: 8,
        }),
      ),
    );
    await expectInStep();
    const entries = await indexEntries(h.db);
    expect(entries.size).toBe(40);
    emails.forEach((email, i) =>
      expect(decodeProfile(subscriberId(email), entries.get(subscriberId(email))!)?.keywords).toEqual([`kw${i}`]),
    );
  });

  it('one subscriber saving from six tabs while an unsubscribe lands: the index ends as their document does', async () => {
    const uid = (await addActiveSubscriber(h.db, { email: 'ada@example.com', keywords: ['react'] }, NOW)).id;
    const link = unsubscribeUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW });
    await Promise.all([
      ...Array.from({ length: 6 }, (_, i) =>
        updatePreferences(h.db, {
          uid,
          input: { keywords: `tab${i}`, excludes: '', minBudget: '', mode: 'instant' },
          now: at(1),
          digestHourUtc: 8,
        }),
      ),
      unsubscribeSubscriber(h.db, { token: token(link), secret: h.config.LINK_SECRET, now: at(1) }),
    ]);
    await expectInStep();
    expect((await indexEntries(h.db)).has(uid)).toBe(false);
  });
});

describe('the repair sweep', () => {
  it('builds the index on its first pass, and only then do runs read it instead of users/', async () => {
    // Written straight to users/, as documents from before the index are: the index knows nobody.
    for (const [i, keyword] of ['react', 'go', 'rust'].entries())
      await h.db
        .collection('users')
        .doc(subscriberId(`old${i}@example.com`))
        .set({ email: `old${i}@example.com`, keywords: [keyword], status: 'active' });
    expect((await readActiveSubscribers(h.db, undefined)).from).toBe('users');

    const repaired = await repairMatchIndex(h.db, { now: NOW });
    expect(repaired).toMatchObject({ ran: true, checked: 3, drift: 3, fixed: 3, finished: true });
    await expectInStep();
    const active = await readActiveSubscribers(h.db, undefined);
    expect(active.from).toBe('index');
    expect(active.subscribers.map((s) => s.keywords[0]).sort()).toEqual(['go', 'react', 'rust']);
    const shards = await readIndexShards(
      h.db,
      Array.from({ length: K }, (_, k) => k),
      K,
    );
    expect(shards.every((s) => s.builtAt?.getTime() === NOW.getTime())).toBe(true);
  });

  it('fixes planted drift (missing, stale, left behind by a paused subscriber, belonging to nobody) and reports it', async () => {
    const ids = [];
    for (const name of ['ada', 'bob', 'cy', 'dee', 'eve'])
      ids.push((await addActiveSubscriber(h.db, { email: `${name}@example.com`, keywords: ['react'] }, NOW)).id);
    await repairMatchIndex(h.db, { now: NOW });
    const [ada, bob, cy] = ids;
    const ghost = subscriberId('ghost@example.com');
    await matchIndexShardRef(h.db, matchIndexShardOf(ada, K), K).update({ [`profiles.${ada}`]: FieldValue.delete() });
    await h.db
      .collection('users')
      .doc(bob)
      .update({ keywords: ['changed behind the index’s back'] });
    await h.db.collection('users').doc(cy).update({ status: 'paused' });
    await matchIndexShardRef(h.db, matchIndexShardOf(ghost, K), K).set(
      { profiles: { [ghost]: '[1,["x"],[],null,"i",1,60,"UTC",null,127,0,0]' } },
      { merge: true },
    );
    expect((await indexDrift(h.db)).index).not.toEqual((await indexDrift(h.db)).users);

    // A day later the next sweep starts, in pages of 2: it resumes run after run until the end.
    let run = 0;
    let total = { checked: 0, drift: 0, fixed: 0 };
    for (;;) {
      const r = await repairMatchIndex(h.db, { now: at(24 * 60 + run), pageSize: 2, pagesPerRun: 1 });
      total = { checked: total.checked + r.checked, drift: total.drift + r.drift, fixed: total.fixed + r.fixed };
      run += 1;
      if (r.finished) break;
    }
    expect(run).toBe(3);
    expect(total).toEqual({ checked: 5, drift: 4, fixed: 4 });
    await expectInStep();
    expect((await readRepairState(h.db))?.lastSweep).toMatchObject({ checked: 5, drift: 4, fixed: 4 });
  });

  it('a sweep ends within SWEEP_RUNS runs however many subscribers there are: each run checks more pages as they grow', async () => {
    // 1,000,000 subscribers in pages of 1,000: 21 pages a run, where 5 would take 200 runs (two days).
    expect(sweepPages(1_000_000)).toBe(21);
    expect(sweepPages(1_000_000) * 1_000 * SWEEP_RUNS).toBeGreaterThanOrEqual(1_000_000);
    expect(sweepPages(10_000)).toBe(5);
    // The same proportion here, in pages of one: 300 subscribers, 7 pages a run, where 5 would take 60 runs.
    for (let i = 0; i < 300; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => addActiveSubscriber(h.db, { email: `dev${i + j}@example.com`, keywords: ['react'] }, NOW)),
      );
    let runs = 0;
    for (let done = false; !done; runs++) done = (await repairMatchIndex(h.db, { now: at(runs), pageSize: 1 })).finished;
    expect(runs).toBeLessThanOrEqual(SWEEP_RUNS);
    expect((await readRepairState(h.db))?.lastSweep).toMatchObject({ checked: 300, drift: 0 });
  });

  it('costs one read while the last sweep is less than a day old', async () => {
    await addActiveSubscriber(h.db, { email: 'ada@example.com', keywords: ['react'] }, NOW);
    await repairMatchIndex(h.db, { now: NOW });
    expect(await repairMatchIndex(h.db, { now: at(23 * 60) })).toMatchObject({ ran: false });
    expect(await repairMatchIndex(h.db, { now: at(24 * 60) })).toMatchObject({ ran: true, checked: 1, drift: 0 });
  });
});

describe('the cycle with the index', () => {
  it('a stale entry of someone who unsubscribed never reaches them: the send re-reads the subscriber', async () => {
    const ada = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    await h.subscribe({ email: 'bob@example.com', keywords: ['react'], mode: 'instant' });
    await h.run({ now: NOW.toISOString() }); // builds the index (nothing to match yet)
    // The unsubscribe lands in users/ only (as if its index write were lost): the entry says active.
    await h.db.collection('users').doc(ada).update({ status: 'unsubscribed' });
    h.serveFeed(postingsAbout('react', 2, { at: at(15) }));
    const run = await h.run({ now: at(15).toISOString() });
    expect(run.matchIndex.subscribersFrom).toBe('index');
    expect((await h.inbox()).map((m) => m.to[0])).toEqual(['bob@example.com']);
  });

  it('the first run of a new deployment reads users/, builds the index at the end, and the next run reads the index', async () => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    h.serveFeed(postingsAbout('react', 1, { at: NOW }));
    const first = await h.run({ now: NOW.toISOString() });
    expect(first.matchIndex).toMatchObject({ subscribersFrom: 'users', repair: { checked: 1, finished: true } });
    h.serveFeed([...postingsAbout('react', 1, { at: NOW }), ...postingsAbout('react', 1, { at: at(15), prefix: 'second' })]);
    const second = await h.run({ now: at(15).toISOString() });
    expect(second.matchIndex).toMatchObject({ subscribersFrom: 'index', repair: null });
    expect(second.instantEmails).toBe(1);
  });
});
