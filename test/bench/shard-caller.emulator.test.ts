import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startChannelStandIn, DEFAULT_TELEGRAM_BOT, type ChannelStandIn } from '../../scripts/channel-stand-in/server';
import { startMailSink, type MailSink } from '../../scripts/mail-sink/server';
import { rssFeed } from '../../scripts/sample-feed/rss-feed';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { benchChannelOf } from '../../scripts/bench/bench-channels';
import { benchPostings, buildMatchIndex, markSchemaCurrent, seedSubscribers, type BenchShape } from '../../scripts/bench/bench-world';
import { instrumentFirestore, type FirestoreCounter } from '../../scripts/bench/firestore-counter';
import { BENCH_SECRET, benchDeps, benchLane, shardCaller } from '../../scripts/bench/shard-caller';

const RUN_AT = '2026-11-30T06:00:00Z';
const shape: BenchShape = { subscribers: 40, postings: 10, matchRate: 0.1, digestWorld: 'utc08' };
let sink: MailSink;
let feeds: FeedServer;
let standIn: ChannelStandIn;
let counter: FirestoreCounter;

beforeAll(async () => {
  process.env.METADATA_SERVER_DETECTION = 'none';
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  [sink, feeds, standIn] = await Promise.all([startMailSink({ port: 0 }), startFeedServer({ port: 0 }), startChannelStandIn({ port: 0 })]);
  feeds.setFeed('/jobs.xml', { body: rssFeed(benchPostings(shape, new Date(RUN_AT))), contentType: 'application/rss+xml' });
  counter = instrumentFirestore({ lane: benchLane });
});
afterAll(async () => {
  counter.restore();
  await Promise.all([sink.close(), feeds.close(), standIn.close()]);
});

describe('the bench caller: each phase counts its own work', () => {
  it('counts the channels’ dispatch in its own row, and in no row of the emails’ dispatch it runs beside', async () => {
    const deps = benchDeps({
      CRON_SECRET: BENCH_SECRET,
      LINK_SECRET: 'bench-link-secret-0123456789',
      ADMIN_SECRET: 'bench-admin-secret-0123456789',
      APP_URL: 'https://scout.example.com',
      MAIL_FROM: 'Scout <alerts@scout.example.com>',
      RESEND_API_KEY: 're_bench_shard_caller',
      RESEND_BASE_URL: sink.url,
      FIREBASE_PROJECT_ID: `bench-shard-caller-${Date.now()}-${process.pid}`,
      FIRESTORE_EMULATOR_HOST: process.env.FIRESTORE_EMULATOR_HOST,
      FEED_URLS: `bench=${feeds.url}/jobs.xml`,
      FEED_ALLOW_PRIVATE_ADDRESSES: 'true',
      ALLOW_CLOCK_OVERRIDE: 'true',
      CHANNEL_ALLOW_LOOPBACK: 'true',
      TELEGRAM_BOT_TOKEN: DEFAULT_TELEGRAM_BOT.token,
      TELEGRAM_BOT_USERNAME: DEFAULT_TELEGRAM_BOT.username,
      TELEGRAM_API_BASE_URL: standIn.url,
    });
    const now = new Date(RUN_AT);
    await seedSubscribers(deps.db, shape, now, undefined, benchChannelOf(0.5, standIn.url, now));
    await markSchemaCurrent(deps.db, now);
    await buildMatchIndex(deps.db, now);

    counter.reset();
    const call = await shardCaller({ deps, counter, shard: 0, shards: 1, peakRssMb: () => 0 })(RUN_AT);
    const sent = call.body.channels?.sent ?? 0;
    // Half of the 20 instant subscribers have a channel, each with matches: one alert each.
    expect(sent).toBe(10);
    expect(standIn.received({ all: true })).toHaveLength(10);
    expect(call.body.instantEmails).toBe(20);

    const row = (phase: string) => call.phases.find((p) => p.phase === phase)!;
    // Each message: leased and recorded (2 writes), its row and its subscriber read (2 reads), beside the query.
    expect(row('messages').writes).toBe(2 * sent);
    expect(row('messages').reads).toBeGreaterThanOrEqual(2 * sent);
    expect(row('messages').collections.messages?.writes).toBe(2 * sent);
    expect(row('dispatch').collections.messages).toBeUndefined();
    // Rows that overlap hold nothing twice: together they are at most the whole run's counts.
    const rows = call.phases.reduce((sum, p) => ({ reads: sum.reads + p.reads, writes: sum.writes + p.writes }), { reads: 0, writes: 0 });
    expect(rows.reads).toBeLessThanOrEqual(call.total.reads);
    expect(rows.writes).toBeLessThanOrEqual(call.total.writes);
  });
});
