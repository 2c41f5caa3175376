import type { ChannelSendOutcome } from '../channels/channel-outcome';
import { sendChannelRequest } from '../channels/transports/send-channel-request';
import type { Config } from '../runtime/config';

/** How long a bot reply may take: Telegram waits for the webhook's answer, and the reply is a courtesy. */
export const BOT_REPLY_TIMEOUT_MS = 5_000;

/**
 * A plain-text reply from Scout's bot in a chat (sendMessage, no parse mode: nothing in it is
 * markup), through the Telegram transport every message takes (its answers classified alike, the
 * token kept out of every error). Used for the bot's short answers; the "Connected" message is a
 * channel's test message (SendChannelTest).
 */
export function sendBotReply(
  config: Pick<Config, 'TELEGRAM_API_BASE_URL' | 'TELEGRAM_BOT_TOKEN' | 'CHANNEL_ALLOW_LOOPBACK'>,
  input: { chatId: string; text: string },
): Promise<ChannelSendOutcome> {
  return sendChannelRequest(
    { kind: 'telegram', destination: input.chatId, secret: null },
    { body: JSON.stringify({ chat_id: input.chatId, text: input.text }), messageId: 'bot-reply', attempt: 1 },
    {
      allowLoopback: config.CHANNEL_ALLOW_LOOPBACK,
      telegram: { apiBaseUrl: config.TELEGRAM_API_BASE_URL, botToken: config.TELEGRAM_BOT_TOKEN ?? '' },
      timeoutMs: BOT_REPLY_TIMEOUT_MS,
    },
  );
}
