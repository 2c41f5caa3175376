import type { ChannelSendOutcome } from '../channels/channel-outcome';
import type { Config } from '../runtime/config';

/** How long a bot reply may take: Telegram waits for the webhook's answer, and the reply is a courtesy. */
export const BOT_REPLY_TIMEOUT_MS = 5_000;

/**
 * A plain-text reply from Scout's bot in a chat (sendMessage, no parse mode: nothing in it is
 * markup). Used for the bot's short answers; the "Connected" message is a channel's test message
 * (SendChannelTest). The base URL is the operator's (TELEGRAM_API_BASE_URL), never a subscriber's.
 */
export async function sendBotReply(
  config: Pick<Config, 'TELEGRAM_API_BASE_URL' | 'TELEGRAM_BOT_TOKEN'>,
  input: { chatId: string; text: string },
): Promise<ChannelSendOutcome> {
  const url = `${config.TELEGRAM_API_BASE_URL.replace(/\/$/, '')}/bot${config.TELEGRAM_BOT_TOKEN}/sendMessage`;
  let status: number;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: input.chatId, text: input.text }),
      redirect: 'error',
      signal: AbortSignal.timeout(BOT_REPLY_TIMEOUT_MS),
    });
    status = response.status;
    await response.body?.cancel().catch(() => undefined);
  } catch (error) {
    return { status: 'unknown', error: error instanceof Error ? error.name : 'request failed' };
  }
  if (status >= 200 && status < 300) return { status: 'sent', detail: null };
  if (status === 429) return { status: 'refused', retryAfterMs: null, error: 'telegram 429' };
  if (status === 403) return { status: 'gone', error: 'telegram 403' };
  if (status >= 400 && status < 500) return { status: 'rejected', error: `telegram ${status}` };
  return { status: 'unknown', error: `telegram ${status}` };
}
