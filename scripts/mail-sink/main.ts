import { parseArgs } from 'node:util';
import { startMailSink } from './server';

/** `tsx scripts/mail-sink/main.ts --port 3025 [--host 127.0.0.1] [--no-bodies]` */
async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.MAIL_SINK_PORT ?? '3025' },
      host: { type: 'string', default: '127.0.0.1' },
      'no-bodies': { type: 'boolean', default: false },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`mail-sink: --port must be an integer between 0 and 65535, got "${values.port}"`);
    process.exit(2);
  }
  const sink = await startMailSink({ port, host: values.host, keepBodies: !values['no-bodies'] });
  // First line of stdout is the bare URL so scripts can capture it.
  console.log(sink.url);
  console.error(`mail-sink: inbox ${sink.url}/ — point the SDK at it with RESEND_BASE_URL=${sink.url}`);

  const stop = async (signal: string) => {
    console.error(`mail-sink: ${signal}, stopping`);
    await sink.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error('mail-sink: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
