import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from '../support/harness';
import { addChannel, createChannelHarness, type StandIn } from '../support/channels';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import type { FaultInput } from '../../scripts/channel-stand-in/types';
import { messagesCollection, webhookMessageId } from '../../lib/messages/message-row';
import { newWebhookSecret } from '../../lib/channels/transports/webhook';
import { InjectedCrash, type Failpoint, type FailpointName } from '../../lib/runtime/failpoints';
import { subscribersCollection } from '../../lib/subscribers/subscriber';
import type { ChannelKind } from '../../lib/channels/channel';
import { createChannelSender } from '../../lib/messages/channel-sender';
import { runCycle } from '../../lib/cycle/run-cycle';

/**
 * Each channel kind end to end, through the real formats, transports and limiter, against the local
 * stand-in for Slack, Discord, Telegram and a webhook receiver: a send, a crash between claim and
 * send and between send and record, every fault the stand-in injects, a gone destination. The
 * rules (docs/channels.md): an instant alert is never shown twice on any channel; a webhook repeats
 * under one webhook-id, which its receiver drops.
 */

const NOW = new Date('2026-11-30T06:00:00Z');
const later = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();
const KINDS: ChannelKind[] = ['slack', 'discord', 'telegram', 'webhook'];

let h: Harness;
let standIn: StandIn;
let close: () => Promise<void>;
beforeEach(async () => {
  ({ h, standIn, close } = await createChannelHarness());
});
afterEach(async () => close());

/** One channel of `kind` and the stand-in's destination key for it. */
function destinationOf(kind: ChannelKind, name: string): { destination: string; key: string; secret?: string } {
  const snowflake = `11447712244651${String(name.length).padStart(5, '0')}`;
  switch (kind) {
    case 'slack':
      return { destination: standIn.slackUrl(`T0/B0/${name}`), key: `T0/B0/${name}` };
    case 'discord':
      return { destination: standIn.discordUrl(snowflake, `tok_${name}`), key: snowflake };
    case 'telegram':
      return { destination: '424242', key: '424242' };
    case 'webhook':
      return { destination: standIn.hookUrl(name), key: name, secret: newWebhookSecret() };
  }
}

async function subscriberWith(kind: ChannelKind, options: { mode?: 'instant' | 'daily'; instant?: boolean; digest?: boolean } = {}) {
  const uid = await h.subscribe({ email: `${kind}@example.com`, keywords: ['react'], mode: options.mode ?? 'instant' });
  const where = destinationOf(kind, 'alerts');
  const channel = await addChannel(h.db, uid, {
    kind,
    destination: where.destination,
    secret: where.secret ?? null,
    instant: options.instant ?? true,
    digest: options.digest ?? false,
  });
  return { uid, channel, key: where.key };
}

const rows = async () => (await messagesCollection(h.db).get()).docs.map((d) => ({ key: d.id, ...d.data() }));
const taken = (kind: ChannelKind, key: string) => standIn.received({ platform: kind, destination: key });
const crashAt =
  (point: FailpointName): Failpoint =>
  async (name) => {
    if (name === point) throw new InjectedCrash(name);
  };
const inject = (fault: Omit<FaultInput, 'destination'>, key: string, kind: ChannelKind) =>
  standIn.inject({ destination: key, platform: kind, ...fault });

/** A run whose channel sender gives up on an answer after 300 ms, so a hung platform costs a test little. */
const runWithShortTimeout = (now: string) =>
  runCycle(
    {
      ...h.deps,
      channelSender: createChannelSender(h.config, {
        clock: Date.now,
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        timeoutMs: 300,
      }),
    },
    { now: new Date(now), dryRun: false, trigger: 'test' },
  );

describe.each(KINDS)('%s', (kind) => {
  it('8 runs at once send the alert once', async () => {
    const { key } = await subscriberWith(kind);
    h.serveFeed(postingsAbout('react', 2, { at: NOW }));
    await Promise.all(Array.from({ length: 8 }, (_, i) => h.run({ now: NOW.toISOString(), lockName: `overlap-${i}` })));
    expect(taken(kind, key)).toHaveLength(1);
    expect(await rows()).toMatchObject([{ status: 'sent', attempts: 1 }]);
  });

  it('a crash after the claim, before any send: the next run sends the message, once', async () => {
    const { key } = await subscriberWith(kind);
    h.serveFeed(postingsAbout('react', 1, { at: NOW }));
    await expect(h.run({ now: NOW.toISOString(), failpoint: crashAt('after-claim') })).rejects.toThrow(InjectedCrash);
    expect(await rows()).toMatchObject([{ status: 'pending', attempts: 0 }]);
    await h.run({ now: later(15) });
    expect(taken(kind, key)).toHaveLength(1);
    expect(await rows()).toMatchObject([{ status: 'sent', attempts: 1 }]);
  });

  it('a platform that never answers: the run goes on, a chat alert fails visibly, a webhook is tried again', async () => {
    const { key } = await subscriberWith(kind);
    inject({ fault: 'hang', times: 1 }, key, kind);
    h.serveFeed(postingsAbout('react', 1, { at: NOW }));
    await runWithShortTimeout(NOW.toISOString());
    await runWithShortTimeout(later(15));
    const [row] = await rows();
    if (kind === 'webhook') expect(row).toMatchObject({ status: 'sent', attempts: 2 });
    else {
      expect(row).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^unknown_outcome/) });
      expect(taken(kind, key)).toHaveLength(0);
    }
  });

  it('gets the alert once, and a second run sends nothing', async () => {
    const { key } = await subscriberWith(kind);
    h.serveFeed(postingsAbout('react', 2, { at: NOW }));
    await h.run({ now: NOW.toISOString() });
    await h.run({ now: later(15) });
    expect(taken(kind, key)).toHaveLength(1);
    expect(await rows()).toMatchObject([{ status: 'sent', attempts: 1 }]);
  });

  it('a crash between the lease and the send: the alert is given up visibly, or for a webhook sent once', async () => {
    const { key } = await subscriberWith(kind);
    h.serveFeed(postingsAbout('react', 1, { at: NOW }));
    await expect(h.run({ now: NOW.toISOString(), failpoint: crashAt('before-message-send') })).rejects.toThrow(InjectedCrash);
    await h.run({ now: later(15) });
    const [row] = await rows();
    if (kind === 'webhook') {
      expect(row).toMatchObject({ status: 'sent', attempts: 2 });
      expect(taken(kind, key)).toHaveLength(1);
    } else {
      expect(row).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^unknown_outcome/) });
      expect(taken(kind, key)).toHaveLength(0);
    }
  });

  it('a crash between the send and its record: never a second copy (a webhook repeats under the same webhook-id)', async () => {
    const { key } = await subscriberWith(kind);
    h.serveFeed(postingsAbout('react', 1, { at: NOW }));
    await expect(h.run({ now: NOW.toISOString(), failpoint: crashAt('after-message-send') })).rejects.toThrow(InjectedCrash);
    await h.run({ now: later(15) });
    const [row] = await rows();
    const received = taken(kind, key);
    if (kind === 'webhook') {
      expect(row.status).toBe('sent');
      expect(new Set(received.map((r) => r.headers['webhook-id']))).toEqual(new Set([webhookMessageId(row.key)]));
      expect(new Set(received.map((r) => r.rawBody)).size).toBe(1);
    } else {
      expect(row).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^unknown_outcome/) });
      expect(received).toHaveLength(1);
    }
  });

  it("a 429 is waited out: the message goes after the platform's retry-after, even an instant alert", async () => {
    const { key } = await subscriberWith(kind);
    // A short wait: the instance's limiter holds the destination for it in real time, across runs.
    inject({ fault: 'rate-limit', retryAfterSeconds: 1, times: 1 }, key, kind);
    h.serveFeed(postingsAbout('react', 1, { at: NOW }));
    await h.run({ now: NOW.toISOString() });
    expect(await rows()).toMatchObject([{ status: 'pending', attempts: 1 }]);
    await h.run({ now: later(15) });
    expect(await rows()).toMatchObject([{ status: 'sent', attempts: 2 }]);
    expect(taken(kind, key)).toHaveLength(1);
  });

  it('a 5xx or a dropped connection may have posted it: a chat alert fails visibly, a webhook is tried again', async () => {
    const { key } = await subscriberWith(kind);
    inject({ fault: 'server-error', status: 502, times: 1 }, key, kind);
    h.serveFeed(postingsAbout('react', 1, { at: NOW }));
    await h.run({ now: NOW.toISOString() });
    await h.run({ now: later(15) });
    const [row] = await rows();
    if (kind === 'webhook') expect(row).toMatchObject({ status: 'sent', attempts: 2 });
    else expect(row).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^unknown_outcome/) });
  });

  it('a dropped answer after the platform took it: no chat alert twice', async () => {
    const { key } = await subscriberWith(kind);
    inject({ fault: 'drop', times: 1 }, key, kind);
    h.serveFeed(postingsAbout('react', 1, { at: NOW }));
    await h.run({ now: NOW.toISOString() });
    await h.run({ now: later(15) });
    const received = taken(kind, key);
    if (kind === 'webhook') expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    else {
      expect(received).toHaveLength(1);
      expect(await rows()).toMatchObject([{ status: 'failed' }]);
    }
  });

  it('a gone destination disables the channel at once, tells the subscriber by email, and gets nothing more', async () => {
    const { uid, key } = await subscriberWith(kind);
    inject({ fault: 'gone' }, key, kind);
    h.serveFeed(postingsAbout('react', 1, { at: NOW }));
    const first = await h.run({ now: NOW.toISOString() });
    expect(first.channels).toMatchObject({ disabled: 1 });
    const channels = (await subscribersCollection(h.db).doc(uid).get()).data()!.channels!;
    expect(channels).toMatchObject([{ status: 'disabled', disabledReason: expect.any(String) }]);

    // New postings later: no message is even planned for the disabled channel, and nothing more is
    // sent; the email about it, written with the disabling, goes with that run's dispatch.
    h.serveFeed(postingsAbout('react', 2, { at: new Date(later(30)) }));
    await h.run({ now: later(30) });
    expect(await rows()).toHaveLength(1);
    const subjects = (await h.inbox(`${kind}@example.com`)).map((m) => m.subject);
    const name = { slack: 'Slack', discord: 'Discord', telegram: 'Telegram', webhook: 'Webhook' }[kind];
    expect(subjects.filter((subject) => subject === `Scout stopped sending to your ${name} channel`)).toHaveLength(1);
    expect(taken(kind, key)).toHaveLength(0);
  });

  it("a daily subscriber's digest channel gets the digest at the digest hour; after a crash past the send, a chat may show it twice, a webhook under one id", async () => {
    const { key } = await subscriberWith(kind, { mode: 'daily', instant: false, digest: true });
    h.serveFeed(postingsAbout('react', 2, { at: NOW }));
    await h.run({ now: NOW.toISOString() });
    expect(taken(kind, key)).toHaveLength(0);
    await expect(h.run({ now: '2026-11-30T08:05:00Z', failpoint: crashAt('after-message-send') })).rejects.toThrow(InjectedCrash);
    await h.run({ now: '2026-11-30T08:20:00Z' });
    const [row] = await rows();
    expect(row).toMatchObject({ kind: 'digest', status: 'sent', attempts: 2 });
    const received = taken(kind, key);
    // At least once: the documented window (the platform's answer, then the crash before its record).
    if (kind === 'webhook') expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    else expect(received).toHaveLength(2);
  });
});

describe("one channel's failure never delays another's, nor email", () => {
  it('a hung Slack webhook holds up neither a Discord channel nor the emails of the same run', async () => {
    const slack = await subscriberWith('slack');
    const other = await h.subscribe({ email: 'other@example.com', keywords: ['react'], mode: 'instant' });
    await addChannel(h.db, other, { kind: 'discord', destination: standIn.discordUrl('114477122446512999', 'tok_other') });
    standIn.inject({ destination: slack.key, platform: 'slack', fault: 'hang', times: 1 });
    h.serveFeed(postingsAbout('react', 1, { at: NOW }));

    const run = await runWithShortTimeout(NOW.toISOString());

    expect(run).toMatchObject({ emailsSent: 2, channels: { sent: 1, failed: 1 } });
    expect(standIn.received({ platform: 'discord', destination: '114477122446512999' })).toHaveLength(1);
    expect((await h.inbox()).map((m) => m.to[0]).sort()).toEqual(['other@example.com', 'slack@example.com']);
  });
});
