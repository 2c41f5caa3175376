import { parseArgs } from 'node:util';
import { DEFAULT_TELEGRAM_BOT, startChannelStandIn } from './server';

/** `tsx scripts/channel-stand-in/cli.ts [port] [--host 127.0.0.1] [--strict]` (port also --port; default 3050) */
async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      strict: { type: 'boolean', default: false },
    },
  });
  const raw = values.port ?? positionals[0] ?? process.env.CHANNEL_STAND_IN_PORT ?? '3050';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`channel-stand-in: the port must be an integer between 0 and 65535, got "${raw}"`);
    process.exit(2);
  }
  const standIn = await startChannelStandIn({ port, host: values.host, strictLimits: values.strict });
  // First line of stdout is the bare URL so scripts can capture it.
  console.log(standIn.url);
  console.error(`channel-stand-in: Slack ${standIn.slackUrl()}`);
  console.error(`channel-stand-in: Discord ${standIn.discordUrl()}`);
  console.error(
    `channel-stand-in: Telegram TELEGRAM_API_BASE_URL=${standIn.url} TELEGRAM_BOT_TOKEN=${DEFAULT_TELEGRAM_BOT.token} TELEGRAM_BOT_USERNAME=${DEFAULT_TELEGRAM_BOT.username}`,
  );
  console.error(`channel-stand-in: webhooks ${standIn.url}/hooks/{name}; what arrived: ${standIn.url}/_stand-in/received`);

  const stop = async (signal: string) => {
    console.error(`channel-stand-in: ${signal}, stopping`);
    await standIn.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error('channel-stand-in: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
