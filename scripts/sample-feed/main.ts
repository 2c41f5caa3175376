import { parseArgs } from 'node:util';
import { startFeedServer } from './server';

// Usage: tsx scripts/sample-feed/main.ts [--port 3030] [--host 127.0.0.1]
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '3030' }, host: { type: 'string', default: '127.0.0.1' } },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`--port must be an integer between 0 and 65535, got "${values.port}"`);
  }
  const server = await startFeedServer({ port, host: values.host });
  console.log(`Sample feed: ${server.feedUrl}`);
  console.log(`Use it with FEED_URLS=sample=${server.feedUrl}`);

  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
