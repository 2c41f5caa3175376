import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Firestore } from 'firebase-admin/firestore';
import { readMatchIndexStatus, matchIndexText } from '../../lib/ops/match-index-status';
import { documentSize, FIRESTORE_LIMITS } from '../../lib/store/firestore-limits';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { setSubscriberStatus } from '../../lib/subscribers/set-subscriber-status';
import {
  allIndexShards,
  matchIndexShardOf,
  matchIndexShardRef,
  readActiveSubscribers,
  readIndexShards,
  shardsToRead,
} from '../../lib/subscribers/match-index';
import { DEFAULT_MATCH_INDEX_SHARDS as K, readIndexLayout } from '../../lib/subscribers/match-index-layout';
import { readRepairState, repairMatchIndex } from '../../lib/subscribers/repair-match-index';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { confirmUrl } from '../../lib/subscribers/link-token';
import { confirmSubscription } from '../../lib/subscriptions/confirm';
import { welcomeSettingsOf } from '../../lib/subscriptions/welcome';
import { handleSignupRequest } from '../../lib/subscriptions/handle-signup-request';
import { updatePreferences } from '../../lib/subscriptions/preferences';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';
import { indexDrift } from '../support/match-index';

/**
 * A match index shard that production would refuse (the emulator refuses a document past 1 MiB
 * too, with the same INVALID_ARGUMENT): subscribers' writes still land, the sweep goes on, and a
 * larger MATCH_INDEX_SHARDS rebuilds the index and ends with it built.
 */

const NOW = new Date('2026-11-30T06:00:00Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const DAY = 24 * 60;

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

/**
 * Pads shard k (of `count`) until it is within `room` bytes of 1 MiB: a field beside `profiles`,
 * which no code reads, so the sweep cannot make room by removing entries of nobody's.
 */
async function fillShard(db: Firestore, k: number, count: number, room = 60): Promise<void> {
  const ref = matchIndexShardRef(db, k, count);
  const data = (await ref.get()).data() ?? {};
  const padding = (length: number) => ({ ...data, padding: 'x'.repeat(length) });
  const length = FIRESTORE_LIMITS.documentBytes - room - documentSize('matchIndex', ref.id, padding(0));
  await ref.set({ padding: 'x'.repeat(length) }, { merge: true });
  expect(FIRESTORE_LIMITS.documentBytes - documentSize('matchIndex', ref.id, padding(length))).toBe(room);
}

/** `count` addresses whose uids fall in shard k of K, and one that does not. */
function addressesIn(k: number, count: number): string[] {
  const found: string[] = [];
  for (let i = 0; found.length < count; i++)
    if (matchIndexShardOf(subscriberId(`s${i}@example.com`), K) === k) found.push(`s${i}@example.com`);
  return found;
}

const token = (url: string) => new URL(url).searchParams.get('token');

describe('a full match index shard never stops a subscriber’s write', () => {
  it('an import, a confirmation and a preferences save into a full shard all land; the shard is marked and runs read users/', async () => {
    const [early, imported, signedUp] = addressesIn(5, 3);
    await addActiveSubscriber(h.db, { email: early, keywords: ['react'] }, NOW);
    await repairMatchIndex(h.db, { now: NOW }); // built
    await fillShard(h.db, 5, K);

    // The operator's import: the document is created, the entry would not fit.
    const added = await addActiveSubscriber(h.db, { email: imported, keywords: ['go'] }, at(1));
    expect(added.outcome).toBe('created');
    expect((await h.db.collection('users').doc(added.id).get()).get('status')).toBe('active');
    // Imported again with other keywords: the update's transaction lands too.
    expect((await addActiveSubscriber(h.db, { email: imported, keywords: ['go', 'rust', 'kubernetes'] }, at(1))).outcome).toBe('updated');
    expect((await h.db.collection('users').doc(added.id).get()).get('keywords')).toEqual(['go', 'rust', 'kubernetes']);

    // A signup confirmed by its owner.
    const signup = await handleSignupRequest(
      new Request(`${h.config.APP_URL}/api/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: signedUp, keywords: 'django', mode: 'instant' }),
      }),
      { ...h.deps, now: at(2) },
    );
    expect(signup.status).toBe(202);
    const uid = subscriberId(signedUp);
    const nonce = (await h.db.collection('users').doc(uid).get()).get('signupNonce');
    const link = confirmUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: at(2), nonce });
    expect(
      await confirmSubscription(h.db, {
        token: token(link),
        secret: h.config.LINK_SECRET,
        now: at(3),
        runId: 'confirm-test',
        welcome: welcomeSettingsOf(h.config),
      }),
    ).toMatchObject({ ok: true });
    expect((await h.db.collection('users').doc(uid).get()).get('status')).toBe('active');

    // A save that grows an entry already in the full shard.
    const saved = await updatePreferences(h.db, {
      uid: subscriberId(early),
      input: { keywords: 'react, typescript, next.js, graphql, tailwind', excludes: 'php, wordpress', mode: 'daily' },
      now: at(4),
      digestHourUtc: 8,
    });
    expect(saved).toMatchObject({ ok: true });
    expect((await h.db.collection('users').doc(subscriberId(early)).get()).get('keywords')).toHaveLength(5);

    const [shard] = await readIndexShards(h.db, [5], K);
    expect(shard.builtAt).toBeNull();
    expect(shard.fullAt).not.toBeNull();
    // Nobody is missed: with a shard unvouched for, the run reads users/, which has all three as saved.
    const active = await readActiveSubscribers(h.db, undefined);
    expect(active.from).toBe('users');
    expect(active.subscribers.map((s) => s.email).sort()).toEqual([early, imported, signedUp].sort());
    expect(active.subscribers.find((s) => s.email === early)?.keywords).toHaveLength(5);

    const status = await readMatchIndexStatus(h.db);
    expect(status.full.map((f) => f.shard)).toEqual([`5-of-${K}`]);
    expect(matchIndexText(status).join('\n')).toContain('refused an entry');
  });
});

describe('the repair sweep past a full shard', () => {
  it('records the shard, fixes every other one, finishes, and leaves that shard unbuilt instead of throwing', async () => {
    const inFull = addressesIn(9, 2);
    const elsewhere = ['ada@example.com', 'bob@example.com', 'cy@example.com'].filter((e) => matchIndexShardOf(subscriberId(e), K) !== 9);
    // Written straight to users/, as documents from before the index are: the index knows nobody.
    for (const email of [...inFull, ...elsewhere])
      await h.db
        .collection('users')
        .doc(subscriberId(email))
        .set({ email, keywords: ['react'], status: 'active' });
    await fillShard(h.db, 9, K);

    const first = await repairMatchIndex(h.db, { now: NOW, pageSize: 2, pagesPerRun: 1 });
    expect(first).toMatchObject({ ran: true, finished: false });
    let total = { ...first };
    for (let run = 1; !total.finished && run < 10; run++) {
      const r = await repairMatchIndex(h.db, { now: at(run), pageSize: 2, pagesPerRun: 1 });
      total = { ...r, checked: total.checked + r.checked, fixed: total.fixed + r.fixed, refused: total.refused + r.refused };
    }
    expect(total).toMatchObject({
      finished: true,
      checked: inFull.length + elsewhere.length,
      fixed: elsewhere.length,
      refused: inFull.length,
    });

    const shards = await readIndexShards(h.db, allIndexShards(K), K);
    expect(shards.filter((s) => !s.builtAt).map((s) => s.k)).toEqual([9]);
    expect(shards[9].fullAt).not.toBeNull();
    const repair = await readRepairState(h.db);
    expect(repair?.lastSweep).toMatchObject({ refused: inFull.length, refusedShards: [9] });
    expect(matchIndexText(await readMatchIndexStatus(h.db)).join('\n')).toContain(`${inFull.length} refused by a full shard`);
    expect((await readActiveSubscribers(h.db, undefined)).from).toBe('users');
  });
});

describe('changing MATCH_INDEX_SHARDS', () => {
  it('builds the new layout while runs read the old one (kept in step by writers), ends with every shard built, and removes the old shards', async () => {
    for (const name of ['ada', 'bob', 'cy', 'dee', 'eve'])
      await addActiveSubscriber(h.db, { email: `${name}@example.com`, keywords: [name] }, NOW);
    await repairMatchIndex(h.db, { now: NOW });
    expect((await readActiveSubscribers(h.db, undefined)).from).toBe('index');

    // The run that finds a new count stores it as the one being built and walks nothing: writers write both from their next write.
    expect(await repairMatchIndex(h.db, { now: at(15), shards: 64 })).toMatchObject({ ran: true, checked: 0, layoutChangedTo: 64 });
    expect(await readIndexLayout(h.db)).toEqual({ shards: K, building: 64 });
    // A subscriber who arrives during the rebuild, and a pause: both layouts take them, and runs
    // go on reading the old one, which is still whole: nobody falls back to users/.
    await addActiveSubscriber(h.db, { email: 'fay@example.com', keywords: ['fay'] }, at(20));
    await setSubscriberStatus(h.db, { email: 'eve@example.com', action: 'pause', now: at(21) });
    const meanwhile = await readActiveSubscribers(h.db, undefined);
    expect(meanwhile.from).toBe('index');
    expect(meanwhile.subscribers.map((s) => s.keywords[0]).sort()).toEqual(['ada', 'bob', 'cy', 'dee', 'fay']);
    const building = await readIndexShards(h.db, allIndexShards(64), 64);
    expect(building.flatMap((s) => [...s.profiles.keys()])).toEqual([subscriberId('fay@example.com')]);
    expect(matchIndexText(await readMatchIndexStatus(h.db)).join('\n')).toContain(`building 64 shards`);

    const next = await repairMatchIndex(h.db, { now: at(30), shards: 64 });
    expect(next).toMatchObject({ ran: true, checked: 6, finished: true, refused: 0 });
    expect(await readIndexLayout(h.db)).toEqual({ shards: 64, building: null });
    const shards = await readIndexShards(h.db, allIndexShards(64), 64);
    expect(shards.every((s) => s.builtAt?.getTime() === at(30).getTime())).toBe(true);
    const docs = (await h.db.collection('matchIndex').listDocuments()).map((d) => d.id);
    expect(docs.every((id) => id.endsWith('-of-64'))).toBe(true);
    const active = await readActiveSubscribers(h.db, undefined);
    expect(active.from).toBe('index');
    expect(active.subscribers.map((s) => s.keywords[0]).sort()).toEqual(['ada', 'bob', 'cy', 'dee', 'fay']);
    const { index, users } = await indexDrift(h.db);
    expect(index).toEqual(users);
    // A day later, the usual check under the new layout: nothing to fix.
    expect(await repairMatchIndex(h.db, { now: at(30 + DAY), shards: 64 })).toMatchObject({ ran: true, drift: 0, finished: true });
  });

  it('a full shard is cured by a larger count: the rebuild spreads its subscribers and every shard ends built', async () => {
    const inFull = addressesIn(3, 3);
    for (const email of inFull) await addActiveSubscriber(h.db, { email, keywords: ['react'] }, NOW);
    await repairMatchIndex(h.db, { now: NOW });
    await fillShard(h.db, 3, K, 0);
    await addActiveSubscriber(h.db, { email: addressesIn(3, 4)[3], keywords: ['go'] }, at(1)); // refused: shard 3 marked
    expect((await readActiveSubscribers(h.db, undefined)).from).toBe('users');

    await repairMatchIndex(h.db, { now: at(15), shards: 32 });
    // During the build, a write the full old shard refuses still puts its entry in the new layout, unmarked.
    const late = await addActiveSubscriber(h.db, { email: addressesIn(3, 5)[4], keywords: ['rust'] }, at(20));
    const [inNew] = await readIndexShards(h.db, [matchIndexShardOf(late.id, 32)], 32);
    expect(inNew.profiles.has(late.id)).toBe(true);
    expect(inNew.fullAt).toBeNull();
    const rebuilt = await repairMatchIndex(h.db, { now: at(30), shards: 32 });
    expect(rebuilt).toMatchObject({ finished: true, refused: 0 });
    const active = await readActiveSubscribers(h.db, undefined);
    expect(active.from).toBe('index');
    expect(active.subscribers).toHaveLength(5);
    expect((await readMatchIndexStatus(h.db)).full).toEqual([]);
  });

  it('through the cycle: with MATCH_INDEX_SHARDS=32 the first run stores the layout, the next builds it, and the one after reads the index', async () => {
    const h32 = await createHarness({ MATCH_INDEX_SHARDS: '32' });
    try {
      await h32.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
      const first = await h32.run({ now: NOW.toISOString() });
      expect(first.matchIndex.repair).toMatchObject({ checked: 0, finished: false });
      const second = await h32.run({ now: at(15).toISOString() });
      expect(second.matchIndex.repair).toMatchObject({ checked: 1, finished: true, refused: 0 });
      expect(await readIndexLayout(h32.db)).toEqual({ shards: 32, building: null });
      expect((await readIndexShards(h32.db, allIndexShards(32), 32)).every((s) => s.builtAt)).toBe(true);
      h32.serveFeed(postingsAbout('react', 1, { at: at(30) }));
      const third = await h32.run({ now: at(30).toISOString() });
      expect(third.matchIndex.subscribersFrom).toBe('index');
      expect(third.instantEmails).toBe(1);
      // A cron shard of 4 reads only its own 8 of the 32.
      expect(shardsToRead({ index: 1, count: 4 }, 32)).toEqual([1, 5, 9, 13, 17, 21, 25, 29]);
    } finally {
      await h32.close();
    }
  });
});

describe('changing MATCH_INDEX_SHARDS back before the build ends', () => {
  it('abandons the build: writers write only the layout in force again, runs never left it, and the next sweep removes the half-built shards', async () => {
    await addActiveSubscriber(h.db, { email: 'ada@example.com', keywords: ['react'] }, NOW);
    await repairMatchIndex(h.db, { now: NOW });
    await repairMatchIndex(h.db, { now: at(15), shards: 64 });
    expect(await repairMatchIndex(h.db, { now: at(30) })).toMatchObject({ layoutChangedTo: K });
    expect(await readIndexLayout(h.db)).toEqual({ shards: K, building: null });
    await addActiveSubscriber(h.db, { email: 'bob@example.com', keywords: ['go'] }, at(31));
    expect((await readActiveSubscribers(h.db, undefined)).subscribers).toHaveLength(2);
    expect(await repairMatchIndex(h.db, { now: at(DAY + 30) })).toMatchObject({ finished: true, drift: 0 });
    const docs = (await h.db.collection('matchIndex').listDocuments()).map((d) => d.id);
    expect(docs.every((id) => id.endsWith(`-of-${K}`))).toBe(true);
  });
});
