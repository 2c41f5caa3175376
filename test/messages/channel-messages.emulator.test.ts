import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness';
import { addChannel, startReceiver } from '../support/channels';
import { updateSubscriber } from '../support/subscribers';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { messagesCollection } from '../../lib/messages/message-row';
import { channelFields } from '../../lib/channels/channel';
import { subscribersCollection } from '../../lib/subscribers/subscriber';
import type { Failpoint } from '../../lib/runtime/failpoints';
import { dispatchMessages } from '../../lib/messages/dispatch-messages';
import { ownsSubscriber } from '../../lib/runtime/shard';

const NOW = '2026-11-30T06:00:00Z';
/** What a second run must leave as it found it (feeds/ and locks/ record each run's visit). */
const LEDGER = ['jobs', 'deliveries', 'emails', 'messages', 'users', 'matchIndex'];
let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeEach(async () => {
  h = await createHarness({ CHANNEL_ALLOW_LOOPBACK: 'true' });
  receiver = await startReceiver();
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

const messages = async () => (await messagesCollection(h.db).get()).docs.map((d) => ({ key: d.id, ...d.data() }));
const postedTo = (path: string) => receiver.received.filter((r) => r.path === path);

describe('channel messages ride the same ledger as email', () => {
  it('an instant subscriber gets the alert by email and on their channel, once, and a second run sends nothing and changes nothing', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    await addChannel(h.db, uid, { kind: 'webhook', destination: `${receiver.url}/ada` });
    h.serveFeed(postingsAbout('react', 3, { at: new Date(NOW) }));

    const first = await h.cron({ now: NOW });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      instantEmails: 1,
      channels: { sent: 1, failed: 0, byChannel: { webhook: { sent: 1, failed: 0 } } },
    });
    expect(await h.inbox()).toHaveLength(1);
    expect(postedTo('/ada')).toHaveLength(1);
    const [row] = await messages();
    expect(row).toMatchObject({ uid, channel: 'webhook', kind: 'alert', status: 'sent', attempts: 1, body: null });
    expect(row.deliveryIds).toHaveLength(3);
    // The receiver's key is a digest of the message's key, never the uid (which decodes to an address).
    expect(postedTo('/ada')[0].headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    const before = await h.dump(LEDGER);

    const second = await h.cron({ now: '2026-11-30T06:15:00Z' });
    expect(second.body).toMatchObject({ emailsSent: 0, channels: { sent: 0 } });
    expect(postedTo('/ada')).toHaveLength(1);
    expect(await h.dump(LEDGER)).toEqual(before);
  });

  it("a daily subscriber's instant channel gets the run's matches at once, and its digest channel a copy of the digest", async () => {
    const uid = await h.subscribe({ email: 'bob@example.com', keywords: ['django'], mode: 'daily' });
    await addChannel(h.db, uid, { kind: 'webhook', destination: `${receiver.url}/alerts`, instant: true, digest: false });
    await addChannel(h.db, uid, { kind: 'webhook', destination: `${receiver.url}/digest`, instant: false, digest: true });
    h.serveFeed(postingsAbout('django', 2, { at: new Date(NOW) }));

    const first = await h.cron({ now: NOW });
    expect(first.body).toMatchObject({ queued: 2, emailsSent: 0 });
    expect(postedTo('/alerts')).toHaveLength(1);
    expect(postedTo('/digest')).toHaveLength(0);

    const digestRun = await h.cron({ now: '2026-11-30T08:05:00Z' });
    expect(digestRun.body).toMatchObject({ digests: 1 });
    expect(postedTo('/digest')).toHaveLength(1);
    expect(postedTo('/alerts')).toHaveLength(1);
    const rows = await messages();
    expect(rows.map((r) => [r.kind, r.status]).sort()).toEqual([
      ['alert', 'sent'],
      ['digest', 'sent'],
    ]);
    const digest = rows.find((r) => r.kind === 'digest')!;
    expect(digest.key).toMatch(/^digest_[A-Za-z0-9_-]+_2026-11-30_[A-Za-z0-9_-]+$/);
  });

  it('8 runs at once send each message once: the create() of its key is the claim, the lease is the send', async () => {
    const uids = await Promise.all(
      ['a', 'b', 'c'].map((name) => h.subscribe({ email: `${name}@example.com`, keywords: ['react'], mode: 'instant' })),
    );
    for (const [i, uid] of uids.entries()) await addChannel(h.db, uid, { kind: 'webhook', destination: `${receiver.url}/s${i}` });
    h.serveFeed(postingsAbout('react', 4, { at: new Date(NOW) }));

    await Promise.all(Array.from({ length: 8 }, (_, i) => h.run({ now: NOW, lockName: `overlap-${i}` })));

    for (const i of [0, 1, 2]) expect(postedTo(`/s${i}`)).toHaveLength(1);
    expect((await messages()).map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
    expect(await h.inbox()).toHaveLength(3);
  });

  it('opt-outs win: a channel paused after its message was claimed gets nothing, and the row says why', async () => {
    const uid = await h.subscribe({ email: 'cy@example.com', keywords: ['react'], mode: 'instant' });
    const channel = await addChannel(h.db, uid, { kind: 'webhook', destination: `${receiver.url}/cy` });
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    const pauseAfterClaim: Failpoint = async (name) => {
      if (name !== 'after-claim') return;
      const stored = (await subscribersCollection(h.db).doc(uid).get()).data()!;
      await updateSubscriber(
        h.db,
        uid,
        channelFields(stored.channels!.map((c) => (c.id === channel.id ? { ...c, status: 'paused' as const } : c))),
      );
    };

    await h.run({ now: NOW, failpoint: pauseAfterClaim });

    expect(postedTo('/cy')).toHaveLength(0);
    expect(await messages()).toMatchObject([{ status: 'skipped', lastError: 'channel_paused' }]);
    // Email is not the channel: the alert still went by email.
    expect(await h.inbox()).toHaveLength(1);
  });

  it('an unsubscribed subscriber gets nothing on any channel, even from a message already claimed', async () => {
    const uid = await h.subscribe({ email: 'di@example.com', keywords: ['react'], mode: 'daily' });
    await addChannel(h.db, uid, { kind: 'webhook', destination: `${receiver.url}/di` });
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    const leaveAfterClaim: Failpoint = async (name) => {
      if (name === 'after-claim') await updateSubscriber(h.db, uid, { status: 'unsubscribed' });
    };

    await h.run({ now: NOW, failpoint: leaveAfterClaim });

    expect(postedTo('/di')).toHaveLength(0);
    expect(await messages()).toMatchObject([{ status: 'skipped', lastError: 'subscriber_unsubscribed' }]);
  });
});

describe('a long backlog', () => {
  /** Subscribers with a webhook each, whose run stopped after the claim: their messages wait, pending, for a dispatch. */
  async function pendingMessages(names: string[]): Promise<string[]> {
    const uids = await Promise.all(names.map((n) => h.subscribe({ email: `${n}@example.com`, keywords: ['react'], mode: 'instant' })));
    for (const [i, uid] of uids.entries()) await addChannel(h.db, uid, { kind: 'webhook', destination: `${receiver.url}/${names[i]}` });
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    const stopBeforeDispatch: Failpoint = async (name) => {
      if (name === 'after-digest-claim') throw new Error('stop before the dispatch');
    };
    await h.run({ now: NOW, failpoint: stopBeforeDispatch }).catch(() => undefined);
    expect((await messages()).map((r) => r.status)).toEqual(names.map(() => 'pending'));
    return uids;
  }

  const dispatchDeps = () => ({
    db: h.db,
    channelSender: h.deps.channelSender!,
    clock: () => new Date('2026-11-30T06:15:00Z'),
    outOfTime: () => false,
    log: () => {},
    channelGone: async () => {},
  });

  it('is read a page at a time until it is sent, in one run', async () => {
    await pendingMessages(['p', 'q', 'r']);

    const stats = await dispatchMessages(dispatchDeps(), { runId: 'paged', pageSize: 2 });

    expect(stats.sent).toBe(3);
    expect((await messages()).map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
  });

  it("a shard's run sends its own subscribers' messages and steps past the others', page after page", async () => {
    const uids = await pendingMessages(['s1', 's2', 's3', 's4', 's5', 's6']);
    const shard0 = { index: 0, count: 2 };
    const owned = uids.filter((uid) => ownsSubscriber(shard0, uid)).length;
    expect(owned).toBeGreaterThan(0);
    expect(owned).toBeLessThan(6);

    const first = await dispatchMessages(dispatchDeps(), { runId: 'shard-0', shard: shard0, pageSize: 2 });
    expect(first.sent).toBe(owned);
    const second = await dispatchMessages(dispatchDeps(), { runId: 'shard-1', shard: { index: 1, count: 2 }, pageSize: 2 });
    expect(second.sent).toBe(6 - owned);
    expect((await messages()).every((r) => r.status === 'sent')).toBe(true);
    expect(receiver.received).toHaveLength(6);
  });
});
