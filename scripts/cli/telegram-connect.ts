import { connectTelegramWebhook } from '../../lib/channels/telegram-bot';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { expectPositionals, invalid, readArgv } from './cli-args';
import { parseArgs } from 'node:util';

const usage = `Usage: scout telegram connect

Registers Scout's Telegram webhook (APP_URL/api/telegram) with Telegram's Bot API, with the secret
Telegram sends back on every update (derived from LINK_SECRET and the bot's token, so there is
nothing more to set). Needs TELEGRAM_BOT_TOKEN and TELEGRAM_BOT_USERNAME. Run it once per
deployment, and again after changing the bot's token or LINK_SECRET: until then the bot's updates
are refused (401) and nobody can add a Telegram channel.

Options:
  -h, --help  show this help`;

export function parseTelegramConnectArgs(argv: string[]): Parsed<Record<string, never>> {
  const read = readArgv(() =>
    parseArgs({ args: argv, allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' } } }),
  );
  if (!read.ok) return invalid(read.message);
  if (read.value.values.help) return { kind: 'help' };
  const positionalError = expectPositionals(read.value.positionals, []);
  return positionalError ? invalid(positionalError) : { kind: 'args', args: {} };
}

export async function telegramConnect(ctx: CommandContext): Promise<number> {
  const result = await connectTelegramWebhook(ctx.appDeps().config);
  if (!result.ok) {
    ctx.out(`not connected: ${result.error}`);
    return EXIT.problems;
  }
  ctx.out(`connected: Telegram sends the bot's updates to ${result.url} (${result.description})`);
  return EXIT.ok;
}

export const telegramConnectCommand = defineCommand({
  name: 'connect',
  summary: "register Scout's webhook with Telegram's Bot API",
  usage,
  parse: parseTelegramConnectArgs,
  run: telegramConnect,
});
