import { randomBytes } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import { inject } from 'vitest';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import type { SinkFaults, SinkMessage } from '../../scripts/mail-sink/types';
import { loadConfig, type Config, type Tuning } from '../../lib/runtime/config';
import { handleCronRequest } from '../../lib/cron/handle-cron-request';
import type { AppDeps } from '../../lib/wiring/app-deps';
import { runCycle } from '../../lib/cycle/run-cycle';
import type { Shard } from '../../lib/runtime/shard';
import { noFailpoints, type Failpoint } from '../../lib/runtime/failpoints';
import { silentLogger } from '../../lib/runtime/logger';
import { deliveriesCollection } from '../../lib/ledger/delivery';
import { readDeliveryOutcomes, type DeliveryOutcome } from '../../lib/ops/delivery-outcome';
import { buildDeps } from '../../lib/wiring/production-deps';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import type { SubscriberInput } from '../../lib/subscribers/subscriber';
import { rssFeed, type TestItem } from '../../scripts/sample-feed/rss-feed';

export const CRON_SECRET = 'test-cron-secret-0123456789';

export type Harness = {
  db: Firestore;
  config: Config;
  deps: AppDeps;
  feeds: FeedServer;
  apiKey: string;
  /** Replaces the feed served at /jobs.xml (the harness's FEED_URLS). */
  serveFeed(items: TestItem[]): void;
  /** Calls GET /api/cron through the real route logic with the secret. */
  cron(
    query?: Record<string, string>,
    init?: { headers?: Record<string, string>; failpoint?: Failpoint },
  ): Promise<{ status: number; body: any }>;
  /** Runs the cycle directly, e.g. under its own lock name to take the lock out of the picture. */
  run(options: { now: string; lockName?: string; failpoint?: Failpoint; shard?: Shard }): Promise<any>;
  subscribe(input: SubscriberInput): Promise<string>;
  inbox(to?: string): Promise<SinkMessage[]>;
  setFaults(faults: SinkFaults): Promise<void>;
  /** Every document of every ledger collection, for "same state" comparisons. */
  dump(collections?: string[]): Promise<Record<string, Record<string, unknown>>>;
  /** Every delivery's outcome as a subscriber would see it (joined with its outbox row), in id order. */
  deliveryOutcomes(): Promise<DeliveryOutcome[]>;
  close(): Promise<void>;
};

const LEDGER = ['users', 'jobs', 'deliveries', 'emails', 'messages', 'feeds', 'locks'];

/**
 * A fresh Scout for one test: its own Firestore project on the shared emulator, its own mail
 * API key on the shared sink (so faults and inboxes never cross tests), its own feed server.
 * `overrides` are environment variables; `tuning` sets the constants that are not (Tuning).
 */
export async function createHarness(overrides: Record<string, string> = {}, tuning: Tuning = {}): Promise<Harness> {
  process.env.METADATA_SERVER_DETECTION = 'none';
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  const sinkUrl = inject('mailSinkUrl');
  const suffix = randomBytes(5).toString('hex');
  const apiKey = `re_test_${suffix}`;
  const feeds = await startFeedServer({ port: 0 });
  feeds.setFeed('/jobs.xml', { body: rssFeed([]), contentType: 'application/rss+xml' });
  const env = loadConfig({
    CRON_SECRET,
    LINK_SECRET: 'test-link-secret-0123456789',
    ADMIN_SECRET: 'test-admin-secret-0123456789',
    APP_URL: 'http://localhost:3000',
    MAIL_FROM: 'Scout <alerts@scout.test>',
    RESEND_API_KEY: apiKey,
    RESEND_BASE_URL: sinkUrl,
    FIREBASE_PROJECT_ID: `scout-test-${suffix}`,
    FIRESTORE_EMULATOR_HOST: inject('firestoreEmulatorHost'),
    FEED_URLS: `${feeds.url}/jobs.xml`,
    // The test's feed server is on loopback.
    FEED_ALLOW_PRIVATE_ADDRESSES: 'true',
    ALLOW_CLOCK_OVERRIDE: 'true',
    SEND_RATE_PER_SEC: '200',
    ...overrides,
  });
  // More requests in flight than production's 2, to keep the tests quick at the sink's high rate.
  const config: Config = { ...env, tuning: { SEND_CONCURRENCY: 8, ...tuning } };
  const deps: AppDeps = { ...buildDeps(config), log: silentLogger };
  const { db } = deps;

  return {
    db,
    config,
    deps,
    feeds,
    apiKey,
    serveFeed: (items) => feeds.setFeed('/jobs.xml', { body: rssFeed(items), contentType: 'application/rss+xml' }),
    async cron(query = {}, init = {}) {
      const url = `http://localhost/api/cron?${new URLSearchParams(query)}`;
      const request = new Request(url, { headers: init.headers ?? { authorization: `Bearer ${CRON_SECRET}` } });
      const response = await handleCronRequest(request, { ...deps, failpoint: init.failpoint ?? noFailpoints });
      return { status: response.status, body: await response.json() };
    },
    async run(options) {
      return runCycle(
        { ...deps, failpoint: options.failpoint ?? noFailpoints },
        { now: new Date(options.now), dryRun: false, trigger: 'test', lockName: options.lockName, shard: options.shard },
      );
    },
    async subscribe(input) {
      return (await addActiveSubscriber(db, input, new Date('2026-11-29T00:00:00Z'))).id;
    },
    async inbox(to) {
      const params = new URLSearchParams({ apiKey, ...(to ? { to } : {}) });
      const res = await fetch(`${sinkUrl}/sink/messages?${params}`);
      return ((await res.json()) as { messages: SinkMessage[] }).messages;
    },
    async setFaults(faults) {
      const res = await fetch(`${sinkUrl}/sink/faults`, {
        method: 'POST',
        body: JSON.stringify({ apiKey, ...faults }),
        headers: { 'content-type': 'application/json' },
      });
      if (!res.ok) throw new Error(`setting sink faults failed: ${res.status}`);
    },
    async dump(collections = LEDGER) {
      const out: Record<string, Record<string, unknown>> = {};
      for (const name of collections) {
        const snap = await db.collection(name).get();
        out[name] = Object.fromEntries(snap.docs.map((d) => [d.id, JSON.parse(JSON.stringify(d.data()))]));
      }
      return out;
    },
    async deliveryOutcomes() {
      const snap = await deliveriesCollection(db).get();
      return readDeliveryOutcomes(
        db,
        snap.docs.map((d) => d.data()),
      );
    },
    async close() {
      await feeds.close();
    },
  };
}
