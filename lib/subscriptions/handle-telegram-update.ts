import { createHash, timingSafeEqual } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import { telegramEnabled, telegramWebhookSecret, type Config } from '../runtime/config';
import { silentLogger, type Logger } from '../runtime/logger';
import { readBody } from '../http/read-body';
import { countClientRequest, type ClientLimit } from '../http/client-limit';
import { bindChat, unbindChat } from './channel-links';
import { channelLinksOf, type SendChannelTest } from './channel-test-message';
import { readChatMessage, type ChatMessage } from './telegram-update';
import { sendBotReply } from './telegram-reply';

export type TelegramUpdateDeps = {
  db: Firestore;
  config: Pick<
    Config,
    'TELEGRAM_BOT_TOKEN' | 'TELEGRAM_BOT_USERNAME' | 'TELEGRAM_API_BASE_URL' | 'LINK_SECRET' | 'APP_URL' | 'CHANNEL_ALLOW_LOOPBACK'
  >;
  now: Date;
  log?: Logger;
  sendChannelTest: SendChannelTest;
};

/** An Update is a few hundred bytes; Telegram's largest text message is 4,096 characters. */
export const MAX_TELEGRAM_UPDATE_BYTES = 64 * 1024;

/** Replies per chat a minute: someone typing at the bot gets answers, a flood does not make Scout flood Telegram. */
export const TELEGRAM_CHAT_REPLIES: ClientLimit = {
  name: 'telegram-chat',
  windowLetter: 'm',
  kind: 'telegram-chat',
  hashedAs: 'telegram-chat',
  windowMs: 60_000,
  perWindow: 10,
};

export const BOT_TEXT = {
  expired: 'This link has expired. Open your Scout preferences and press “New link” to get a fresh one.',
  used: 'This link was already used. To connect a chat, make a new link on your Scout preferences page.',
  unknown: 'Scout does not know this link. Open your Scout preferences and press “Connect Telegram” to get one.',
  stopped: 'Stopped: Scout sends nothing more to this chat.',
  nothingToStop: 'This chat gets nothing from Scout: there was nothing to stop.',
  help: 'This is Scout’s bot. To get job postings here, open your Scout preferences and press “Connect Telegram”. Send /stop to stop.',
} as const;

/**
 * POST /api/telegram: the bot's webhook (docs/channels.md "The Telegram bot"). Telegram sends the
 * secret it was given in setWebhook as X-Telegram-Bot-Api-Secret-Token: wrong or missing is 401
 * before the body is read; a Scout without the bot answers 404. Once the secret is right the
 * answer is 200 for every update, read or ignored, because any other status makes Telegram send
 * the same update again; only a store failure answers 500, and a retry is then harmless (a start
 * token binds once, /stop removes what is there). Replies are rate-limited per chat.
 */
export async function handleTelegramUpdate(request: Request, deps: TelegramUpdateDeps): Promise<Response> {
  const log = deps.log ?? silentLogger;
  const cancel = () => request.body?.cancel().catch(() => undefined);
  if (request.method !== 'POST') {
    await cancel();
    return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
  }
  if (!telegramEnabled(deps.config)) {
    await cancel();
    return Response.json({ error: 'not found' }, { status: 404 });
  }
  if (!sameSecret(request.headers.get('x-telegram-bot-api-secret-token'), telegramWebhookSecret(deps.config))) {
    await cancel();
    log('telegram.refused', { reason: 'secret' });
    return Response.json({ error: 'unauthorized' }, { status: 401 });
  }
  const body = await readBody(request, { types: ['application/json'], maxBytes: MAX_TELEGRAM_UPDATE_BYTES, utf8: 'strict' });
  const message = body.ok ? readChatMessage(body.text) : null;
  if (!message) {
    log('telegram.ignored', { reason: body.ok ? 'not a private text message' : body.reason });
    return Response.json({ ok: true });
  }
  try {
    await answer(deps, log, message);
  } catch (error) {
    log('telegram.error', { updateId: message.updateId, error: error instanceof Error ? error.message : String(error) });
    return Response.json({ error: 'try again' }, { status: 500 });
  }
  return Response.json({ ok: true });
}

/** Compared as digests, so neither the length nor the content of the configured secret leaks through timing. */
function sameSecret(offered: string | null, expected: string): boolean {
  if (offered === null) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(offered), digest(expected));
}

async function answer(deps: TelegramUpdateDeps, log: Logger, message: ChatMessage): Promise<void> {
  const { command } = message;
  if (command.command === 'start' && command.token) {
    const binding = await bindChat(deps.db, { token: command.token, chatId: message.chatId, label: message.label, now: deps.now });
    log('telegram.start', { updateId: message.updateId, outcome: binding.outcome });
    if (binding.outcome === 'repeat') return;
    if (binding.outcome !== 'bound') return reply(deps, log, message.chatId, BOT_TEXT[binding.outcome]);
    if (!(await mayReply(deps, message.chatId))) return;
    const links = channelLinksOf(binding.subscriber, { appUrl: deps.config.APP_URL, secret: deps.config.LINK_SECRET, now: deps.now });
    const outcome = await deps.sendChannelTest(
      { kind: 'telegram', destination: message.chatId, secret: null },
      { type: 'test', code: null, links },
    );
    log('telegram.connected', { updateId: message.updateId, reply: outcome.status });
    return;
  }
  if (command.command === 'stop') {
    const removed = await unbindChat(deps.db, { chatId: message.chatId, now: deps.now });
    log('telegram.stop', { updateId: message.updateId, removed });
    return reply(deps, log, message.chatId, removed > 0 ? BOT_TEXT.stopped : BOT_TEXT.nothingToStop);
  }
  return reply(deps, log, message.chatId, BOT_TEXT.help);
}

async function mayReply(deps: TelegramUpdateDeps, chatId: string): Promise<boolean> {
  const count = await countClientRequest(deps.db, TELEGRAM_CHAT_REPLIES, {
    clientAddress: chatId,
    secret: deps.config.LINK_SECRET,
    now: deps.now,
  });
  return count.allowed;
}

async function reply(deps: TelegramUpdateDeps, log: Logger, chatId: string, text: string): Promise<void> {
  if (!(await mayReply(deps, chatId))) {
    log('telegram.reply', { outcome: 'rate-limited' });
    return;
  }
  const outcome = await sendBotReply(deps.config, { chatId, text });
  log('telegram.reply', { outcome: outcome.status });
}
