/**
 * npm run bench:batch — what batching buys under a real provider limit. Seeds N instant
 * subscribers matching one posting, then runs the real cycle twice on fresh data against the mail
 * sink limited to 2 requests/s (Resend's default): once one email per request, once batched.
 *
 *   npm run bench:batch -- --subscribers 200
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../../lib/runtime/config';
import { noFailpoints } from '../../lib/runtime/failpoints';
import { silentLogger } from '../../lib/runtime/logger';
import { runCycle } from '../../lib/cycle/run-cycle';
import { buildDeps } from '../../lib/wiring/production-deps';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { startMailSink } from '../mail-sink/server';
import { startFeedServer } from '../sample-feed/server';
import { clearEmulatorProject, startFirestoreEmulator } from '../stack/firestore-emulator';
import { rssFeed } from '../sample-feed/rss-feed';

const { values } = parseArgs({ options: { subscribers: { type: 'string', default: '200' } } });
const subscribers = Number(values.subscribers);
const RATE = 2;

async function main() {
  process.env.METADATA_SERVER_DETECTION = 'none';
  const emulator = await startFirestoreEmulator({ port: 8188 });
  process.env.FIRESTORE_EMULATOR_HOST = emulator.host;
  const sink = await startMailSink({ port: 0 });
  const feeds = await startFeedServer({ port: 0 });
  const now = new Date('2026-11-30T06:00:00Z');
  feeds.setFeed('/jobs.xml', {
    body: rssFeed([
      {
        guid: 'bench-1',
        title: 'React engineer',
        link: 'https://jobs.example.com/1',
        description: 'react',
        pubDate: new Date(now.getTime() - 60_000).toUTCString(),
      },
    ]),
    contentType: 'application/rss+xml',
  });
  const rows: string[] = [];
  try {
    for (const batchSize of [1, 100]) {
      const projectId = `bench-batch-${batchSize}`;
      await clearEmulatorProject(emulator.host, projectId);
      const apiKey = `re_bench_${batchSize}`;
      sink.setFaults(apiKey, { ratePerSec: RATE });
      const env = loadConfig({
        CRON_SECRET: 'bench-secret-0123456789',
        LINK_SECRET: 'bench-secret-0123456789',
        ADMIN_SECRET: 'bench-secret-0123456789',
        APP_URL: 'http://localhost:3000',
        MAIL_FROM: 'Scout <alerts@scout.test>',
        RESEND_API_KEY: apiKey,
        RESEND_BASE_URL: sink.url,
        FIREBASE_PROJECT_ID: projectId,
        FIRESTORE_EMULATOR_HOST: emulator.host,
        FEED_URLS: `${feeds.url}/jobs.xml`,
        FEED_ALLOW_PRIVATE_ADDRESSES: 'true',
        SEND_RATE_PER_SEC: String(RATE),
        RUN_BUDGET_MS: '900000',
      });
      // The batch size under test, passed as the code takes it (lib/mail/mailer.ts's SEND_BATCH_SIZE is the default).
      const config = { ...env, tuning: { SEND_BATCH_SIZE: batchSize } };
      const deps = { ...buildDeps(config), log: silentLogger, failpoint: noFailpoints };
      for (let i = 0; i < subscribers; i += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, subscribers - i) }, (_, j) =>
            addActiveSubscriber(deps.db, { email: `dev${i + j}@example.com`, keywords: ['react'] }, now),
          ),
        );
      }
      const started = Date.now();
      const result = await runCycle(deps, { now, dryRun: false, trigger: 'bench' });
      const seconds = (Date.now() - started) / 1000;
      if (result.kind !== 'ran') throw new Error(`run did not happen: ${JSON.stringify(result)}`);
      const received = sink.messages({ apiKey }).length;
      rows.push(
        `| ${batchSize === 1 ? 'one email per request' : 'batched (≤ 100 per request)'} | ${result.emailsSent} | ${received} | ${result.providerRequests} | ${seconds.toFixed(1)} s |`,
      );
    }
    console.log(`\n${subscribers} alerts, provider limited to ${RATE} requests/s (mail sink), one cycle each:\n`);
    console.log('| mode | emails sent | received | provider requests | cycle wall time |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const row of rows) console.log(row);
  } finally {
    await feeds.close();
    await sink.close();
    await emulator.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
