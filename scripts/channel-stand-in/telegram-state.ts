import type { TelegramBot, TelegramWebhook } from './types';

/**
 * The stand-in's one bot unless told otherwise: its token passes Scout's TELEGRAM_BOT_TOKEN check
 * (digits, a colon, 20+ of A–Z a–z 0–9 _ -) and is published here, so it is nobody's secret.
 */
export const DEFAULT_TELEGRAM_BOT: TelegramBot = {
  token: '7000000001:AAStandInBotTokenNotForProduction',
  username: 'scout_stand_in_bot',
  firstName: 'Scout',
  id: 7000000001,
};

/** What a private chat shows of the user in it: learnt when the user writes, made up before that. */
export type ChatProfile = { firstName: string; username?: string };

/** Per bot: its webhook, its update counter; per chat: message ids (shared by both directions, as in Telegram). */
export function createTelegramState(bots: TelegramBot[]) {
  const byToken = new Map(bots.map((bot) => [bot.token, bot]));
  const webhooks = new Map<string, TelegramWebhook>();
  const messageIds = new Map<string, number>();
  const updateIds = new Map<string, number>();
  const profiles = new Map<string, ChatProfile>();
  const chatKey = (token: string, chatId: string) => `${token}\u0000${chatId}`;

  return {
    bots,
    bot: (token: string) => byToken.get(token),
    webhook: (token: string) => webhooks.get(token) ?? null,
    setWebhook: (token: string, webhook: TelegramWebhook | null) => (webhook ? webhooks.set(token, webhook) : webhooks.delete(token)),
    nextMessageId(token: string, chatId: string) {
      const next = (messageIds.get(chatKey(token, chatId)) ?? 0) + 1;
      messageIds.set(chatKey(token, chatId), next);
      return next;
    },
    /** Real update ids are large and only grow; the first is arbitrary, as Telegram's is. */
    nextUpdateId(token: string) {
      const next = (updateIds.get(token) ?? 537_836_435) + 1;
      updateIds.set(token, next);
      return next;
    },
    profile: (token: string, chatId: string): ChatProfile => profiles.get(chatKey(token, chatId)) ?? { firstName: 'Subscriber' },
    rememberProfile: (token: string, chatId: string, profile: ChatProfile) => profiles.set(chatKey(token, chatId), profile),
    clear() {
      webhooks.clear();
      messageIds.clear();
      updateIds.clear();
      profiles.clear();
    },
  };
}

export type TelegramState = ReturnType<typeof createTelegramState>;
