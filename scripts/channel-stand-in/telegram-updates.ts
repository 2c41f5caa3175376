import type { TelegramState } from './telegram-state';
import type { TelegramDelivery, TelegramMessageInput } from './types';

/**
 * The other direction: a user writes to the bot, and Telegram POSTs an Update to the webhook set
 * by setWebhook, with the secret in X-Telegram-Bot-Api-Secret-Token. The Update's shape is copied
 * from real captured ones (README.md beside this file): a private chat's `from` and `chat` carry
 * the same id, a command gets a `bot_command` entity over its first word, offsets in UTF-16 units.
 */
export function buildUpdate(state: TelegramState, botToken: string, input: TelegramMessageInput, at: number) {
  const chatId = String(input.chatId);
  const numericId = Number(chatId);
  const firstName = input.from?.firstName ?? 'Ada';
  const username = input.from?.username ?? `ada_${chatId.replace(/\D/g, '')}`;
  state.rememberProfile(botToken, chatId, { firstName, username });
  const command = /^\/\S+/.exec(input.text)?.[0];
  return {
    update_id: state.nextUpdateId(botToken),
    message: {
      message_id: state.nextMessageId(botToken, chatId),
      from: {
        id: input.from?.id ?? numericId,
        is_bot: false,
        first_name: firstName,
        username,
        language_code: input.from?.languageCode ?? 'en',
      },
      chat: { id: numericId, first_name: firstName, username, type: 'private' },
      date: Math.floor(at / 1000),
      text: input.text,
      ...(command ? { entities: [{ offset: 0, length: command.length, type: 'bot_command' }] } : {}),
    },
  };
}

/** Posts the Update and reports what the webhook answered; Telegram follows no redirects. */
export async function deliverUpdate(
  state: TelegramState,
  input: TelegramMessageInput,
  options: { at: number; timeoutMs: number; signal: AbortSignal },
): Promise<TelegramDelivery> {
  const botToken = input.botToken ?? state.bots[0]?.token;
  if (botToken === undefined || !state.bot(botToken)) return { delivered: false, status: null, error: 'no such bot', update: null };
  const update = buildUpdate(state, botToken, input, options.at);
  const webhook = state.webhook(botToken);
  if (!webhook) return { delivered: false, status: null, error: 'no webhook set: call setWebhook first', update };
  try {
    const response = await fetch(webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(webhook.secretToken ? { 'x-telegram-bot-api-secret-token': webhook.secretToken } : {}),
      },
      body: JSON.stringify(update),
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.signal]),
    });
    const body = await response.text();
    if (response.ok) return { delivered: true, status: response.status, body, update };
    return { delivered: false, status: response.status, error: `webhook answered ${response.status}`, update };
  } catch (error) {
    return { delivered: false, status: null, error: error instanceof Error ? error.message : String(error), update };
  }
}
