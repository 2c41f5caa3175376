import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { EXPECTED, SECRETS, seedChannelWorld } from '../ops/channel-world';
import { createCliFixture, type CliFixture } from './cli-fixture';

let fx: CliFixture;
beforeEach(() => {
  fx = createCliFixture();
});
afterEach(() => fx.close());

const seed = () =>
  seedChannelWorld({
    db: fx.db,
    subscribe: async (email) => (await addActiveSubscriber(fx.db, { email, keywords: ['react'] }, fx.now)).id,
    settings: { appUrl: 'https://scout.example', from: 'Scout <alerts@scout.example>', linkSecret: 'l'.repeat(32) },
  });

describe('scout status: channels', () => {
  it('prints the channels by kind and state, messages waiting, the latest runs per kind and each channel disabled as gone', async () => {
    await seed();
    const run = await fx.cli(['status']);
    // Gone destinations are the subscriber's to fix (they were emailed), not the operator's: no exit 1 for them.
    expect(run.code).toBe(0);
    expect(run.out.filter((line) => line.startsWith('channel'))).toEqual([
      'channels: slack 1 verifying, 1 active; discord 1 active, 1 paused; telegram 1 active, 1 paused; webhook 1 active, 1 disabled (subscribers with one or more channels of the kind in that state)',
      'channels: 2 messages pending, 1 sending',
      'channels: the latest 3 runs (2 with a messages step, since 2026-11-30T05:45:00.000Z): 5 sent, 1 failed, 1 dead, 1 skipped, 2 to retry, 1 channel disabled as gone; slack 2 sent 0 failed, telegram 2 sent 1 failed, webhook 1 sent 1 failed',
      'channel disabled: webhook of a***@example.com at 2026-11-30T06:00:02.000Z: webhook 410 (still disabled)',
      'channel disabled: webhook of c***@example.com at 2026-11-30T05:00:01.000Z: webhook 410 (now removed)',
    ]);
    const all = run.out.join('\n');
    for (const secret of Object.values(SECRETS)) expect(all).not.toContain(secret);
    expect(all).not.toContain('ada@example.com');
  });

  it('--json: the same figures under `channels`, times as ISO strings, and the rest of the status beside them', async () => {
    await seed();
    const run = await fx.cli(['status', '--json']);
    expect(run.code).toBe(0);
    expect(run.out).toHaveLength(1);
    const status = JSON.parse(run.out[0]) as Record<string, any>;
    expect(status.channels).toEqual({
      subscribers: EXPECTED.subscribers,
      waiting: EXPECTED.waiting,
      recent: {
        runs: 3,
        runsWithChannels: 2,
        since: '2026-11-30T05:45:00.000Z',
        sent: 5,
        failed: 1,
        dead: 1,
        skipped: 1,
        retried: 2,
        disabled: 1,
        byChannel: {
          slack: { sent: 2, failed: 0 },
          discord: { sent: 0, failed: 0 },
          telegram: { sent: 2, failed: 1 },
          webhook: { sent: 1, failed: 1 },
        },
      },
      disabled: [
        { kind: 'webhook', subscriber: 'a***@example.com', disabledAt: '2026-11-30T06:00:02.000Z', reason: 'webhook 410', now: 'disabled' },
        { kind: 'webhook', subscriber: 'c***@example.com', disabledAt: '2026-11-30T05:00:01.000Z', reason: 'webhook 410', now: 'removed' },
      ],
    });
    // The text's other figures are there too: the outbox holds the two "your channel was disconnected" emails.
    expect(status.outbox).toMatchObject({ pending: 2, failed: 0, dead: 0 });
    expect(status.runs).toHaveLength(3);
    for (const secret of Object.values(SECRETS)) expect(run.out[0]).not.toContain(secret);
  });

  it('--json on an empty store: zeros everywhere, and the exit code the text would have', async () => {
    const empty = await fx.cli(['status', '--json']);
    expect(empty.code).toBe(0);
    const channels = (JSON.parse(empty.out[0]) as { channels: { subscribers: Record<string, Record<string, number>> } }).channels;
    expect(Object.values(channels.subscribers).flatMap((states) => Object.values(states))).toEqual(new Array(16).fill(0));
    expect(channels).toMatchObject({ waiting: { pending: 0, sending: 0 }, recent: { runs: 0, since: null }, disabled: [] });

    await fx.db
      .collection('emails')
      .doc('alert_x')
      .set({ uid: 'uid-x', kind: 'alert', status: 'dead', attempts: 3, lastError: '422', createdAt: fx.now });
    expect((await fx.cli(['status', '--json'])).code).toBe(1);
  });

  it('rejects an unknown option or a value given to --json without opening the store, exit 2', async () => {
    for (const argv of [
      ['status', '--jsn'],
      ['status', '--json=yes'],
    ]) {
      const run = await fx.cli(argv);
      expect(run).toMatchObject({ code: 2, opened: false });
    }
  });
});
