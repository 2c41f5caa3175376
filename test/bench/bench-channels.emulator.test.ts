import type { Firestore } from 'firebase-admin/firestore';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { CHANNEL_KINDS } from '../../lib/channels/channel';
import { parseDestination } from '../../lib/channels/destination';
import { createFirestore } from '../../lib/store/firestore';
import { decodeProfile, matchIndexShardOf, matchIndexShardRef } from '../../lib/subscribers/match-index';
import { subscriberId, subscribersCollection } from '../../lib/subscribers/subscriber';
import { benchChannelOf, channelsPerKind } from '../../scripts/bench/bench-channels';
import { seedSubscribers, type BenchShape } from '../../scripts/bench/bench-world';

const STAND_IN = 'http://127.0.0.1:3050';
const VERIFIED = new Date('2026-11-29T06:00:00Z');
const modeOf = (i: number) => (i % 2 === 1 ? 'daily' : 'instant');

let n = 0;
const freshDb = (): Firestore => createFirestore({ projectId: `bench-channels-${Date.now()}-${process.pid}-${++n}` });

beforeAll(() => {
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  process.env.METADATA_SERVER_DETECTION = 'none';
});

describe('bench --channels: who gets a channel', () => {
  it('gives exactly the share of the instant and of the daily subscribers one channel, every kind as often on each side', () => {
    const channelOf = benchChannelOf(0.2, STAND_IN, VERIFIED);
    const seen = { instant: new Map<string, number>(), daily: new Map<string, number>() };
    for (let i = 0; i < 10_000; i++) {
      const channel = channelOf(i, modeOf(i));
      if (!channel) continue;
      const side = seen[modeOf(i)];
      side.set(channel.kind, (side.get(channel.kind) ?? 0) + 1);
      // The subscriber's own cadence: the channel carries what their email carries, nothing more.
      expect({ instant: channel.instant, digest: channel.digest }).toEqual({
        instant: modeOf(i) === 'instant',
        digest: modeOf(i) === 'daily',
      });
      expect(channel.status).toBe('active');
    }
    for (const side of [seen.instant, seen.daily])
      expect(Object.fromEntries(side)).toEqual({ slack: 250, discord: 250, telegram: 250, webhook: 250 });
    expect(channelsPerKind(10_000, channelOf)).toEqual({ slack: 500, discord: 500, telegram: 500, webhook: 500 });
  });

  it('gives no subscriber a channel at share 0, and every one a channel at share 1', () => {
    expect(channelsPerKind(1_000, benchChannelOf(0, STAND_IN, VERIFIED))).toEqual({ slack: 0, discord: 0, telegram: 0, webhook: 0 });
    const all = channelsPerKind(1_000, benchChannelOf(1, STAND_IN, VERIFIED));
    expect(CHANNEL_KINDS.reduce((sum, k) => sum + all[k], 0)).toBe(1_000);
  });

  it('points each channel at a destination of its own that the preferences page would accept, a webhook with its own secret', () => {
    const channelOf = benchChannelOf(1, STAND_IN, VERIFIED);
    const channels = Array.from({ length: 400 }, (_, i) => channelOf(i, modeOf(i))!);
    expect(new Set(channels.map((c) => `${c.kind} ${c.destination}`)).size).toBe(400);
    for (const c of channels) {
      if (c.kind === 'telegram') expect(c.destination).toMatch(/^\d+$/);
      else expect(parseDestination(c.kind, c.destination, { allowLoopback: true })).toMatchObject({ ok: true, url: c.destination });
      expect(c.secret === null).toBe(c.kind !== 'webhook');
    }
    // A loopback destination is what CHANNEL_ALLOW_LOOPBACK opens, and nothing without it.
    const slack = channels.find((c) => c.kind === 'slack')!;
    expect(parseDestination('slack', slack.destination, { allowLoopback: false }).ok).toBe(false);
  });
});

describe('bench --channels: seeded as the product writes them', () => {
  it('stores the channel and its states on the subscriber, and its route in the match index entry, in the seeding write', async () => {
    const db = freshDb();
    const shape: BenchShape = { subscribers: 40, postings: 10, matchRate: 0.1, digestWorld: 'utc08' };
    const channelOf = benchChannelOf(0.2, STAND_IN, VERIFIED);
    await seedSubscribers(db, shape, new Date('2026-11-30T06:00:00Z'), 4, channelOf);
    let withChannel = 0;
    for (let i = 0; i < shape.subscribers; i++) {
      const uid = subscriberId(`bench${i}@example.com`);
      const stored = (await subscribersCollection(db).doc(uid).get()).data()!;
      const raw = (await db.collection('users').doc(uid).get()).data()!;
      const entry = (await matchIndexShardRef(db, matchIndexShardOf(uid, 4), 4).get()).data()!.profiles[uid] as string;
      const profile = decodeProfile(uid, entry)!;
      const expected = channelOf(i, modeOf(i));
      if (!expected) {
        expect(stored.channels).toBeUndefined();
        expect(profile.routes).toBeUndefined();
        continue;
      }
      withChannel += 1;
      expect(stored.channels).toHaveLength(1);
      expect(stored.channels![0]).toMatchObject({ kind: expected.kind, destination: expected.destination, status: 'active' });
      expect(raw.channelStates).toEqual([`${expected.kind}:active`]);
      expect(profile.routes).toEqual([
        { id: stored.channels![0].id, kind: expected.kind, instant: expected.instant, digest: expected.digest },
      ]);
    }
    expect(withChannel).toBe(8);
  });
});
