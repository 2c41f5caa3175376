import type { Config } from '../runtime/config';
import { telegramEnabled } from '../runtime/config';
import { randomBytes } from 'node:crypto';
import type { ChannelKind } from '../channels/channel';
import type { ChannelContent } from '../channels/channel-content';
import { renderChannelMessage } from '../channels/formats/render-channel-message';
import { createDestinationLimiter, destinationLimits } from '../channels/destination-limiter';
import { sendChannelRequest } from '../channels/transports/send-channel-request';
import type { ChannelSender } from './dispatch-messages';

/**
 * The instance's channel sender: one limiter per destination (each platform's documented pace,
 * Telegram's per chat and per bot), and the transports, with the settings they need (loopback for
 * the local stand-ins, Scout's bot). Built once per instance, like the email limiter, so every run
 * of a warm instance shares the pace.
 */
export function createChannelSender(
  config: Pick<Config, 'CHANNEL_ALLOW_LOOPBACK' | 'TELEGRAM_BOT_TOKEN' | 'TELEGRAM_BOT_USERNAME' | 'TELEGRAM_API_BASE_URL'>,
  deps: { clock: () => number; sleep: (ms: number) => Promise<void>; timeoutMs?: number },
): ChannelSender {
  const limiter = createDestinationLimiter(deps);
  const http = {
    allowLoopback: config.CHANNEL_ALLOW_LOOPBACK,
    telegram: telegramEnabled(config) ? { apiBaseUrl: config.TELEGRAM_API_BASE_URL, botToken: config.TELEGRAM_BOT_TOKEN! } : null,
    ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}),
  };
  const limitsOf = (target: { kind: ChannelKind; destination: string }) =>
    destinationLimits(target.kind, target.destination, config.TELEGRAM_BOT_TOKEN);
  return {
    readyInMs: (target) => limiter.readyInMs(limitsOf(target)),
    async send(target, request) {
      const limits = limitsOf(target);
      const body = bodyFor(target.kind, request.body, target.destination);
      const outcome = await limiter.run(limits, () => sendChannelRequest(target, { ...request, body }, http));
      limiter.settle(limits, outcome);
      return outcome;
    },
  };
}

/**
 * A Telegram message is addressed in its body (`chat_id`), and the chat is the channel's, not the
 * message's: it is set at send time. Every other kind's body goes as frozen.
 */
export function bodyFor(kind: ChannelKind, body: string, destination: string): string {
  if (kind !== 'telegram') return body;
  return JSON.stringify({ ...(JSON.parse(body) as Record<string, unknown>), chat_id: destination });
}

/**
 * A channel's test message (a verification code, a webhook's `scout.test` event, Telegram's
 * "Connected"), sent at once from the preferences page or the bot, at the destination's pace like
 * any message, but outside the ledger: a lost one is simply asked for again.
 */
export function sendChannelTestVia(sender: ChannelSender) {
  return (target: { kind: ChannelKind; destination: string; secret: string | null }, content: Extract<ChannelContent, { type: 'test' }>) => {
    const chatId = target.kind === 'telegram' ? target.destination : null;
    const { body } = renderChannelMessage(target.kind, content, { chatId, createdAt: new Date() });
    return sender.send(target, { body, messageId: `msg_test_${randomBytes(12).toString('hex')}`, attempt: 1 });
  };
}
