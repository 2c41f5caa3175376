/**
 * npm run dev — the embedded default stack plus `next dev`: the Firestore emulator, the mail sink
 * (inbox page), the sample feed, the channel stand-in, and Scout itself. Values from the environment (or .env.local,
 * which Next reads) override the local defaults.
 */
import { DEFAULT_PORTS, localEnv } from './stack/local-env';
import { startLocalStack } from './stack/start-stack';
import { startNextServer } from './stack/next-server';

/** The channel stand-in on its own port: the demo runs one too, on its own ports. */
const PORTS = { ...DEFAULT_PORTS, channelStandIn: 3050 };

async function main() {
  const env = localEnv(PORTS, process.env);
  const stack = await startLocalStack(PORTS);
  const app = await startNextServer({ mode: 'dev', port: PORTS.app, env });
  console.log(`
Scout is running:
  app          ${app.url}
  mail inbox   ${stack.mailSink.url}/
  sample feed  ${stack.feeds.feedUrl}
  channels     ${stack.channelStandIn?.url} (Slack /services/…, Discord /api/webhooks/…, Telegram /bot…, /hooks/{name}; what arrived: /_stand-in/received)
Run a cycle:
  curl -H "Authorization: Bearer ${env.CRON_SECRET}" "${app.url}/api/cron?now=2026-11-30T06:00:00Z"
Add a subscriber:
  FIREBASE_PROJECT_ID=${env.FIREBASE_PROJECT_ID} FIRESTORE_EMULATOR_HOST=${env.FIRESTORE_EMULATOR_HOST} npm run scout -- users add you@example.com --keywords "react, next.js"
Ctrl-C stops everything.`);
  const shutdown = async () => {
    await app.stop();
    await stack.stop();
    process.exit(0);
  };
  // A stop that fails ends the process as a failed start does, not as an unhandled rejection.
  const onSignal = () => void shutdown().catch(fail);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}

function fail(error: unknown) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

main().catch(fail);
