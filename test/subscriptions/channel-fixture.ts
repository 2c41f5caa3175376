import { readFileSync } from 'node:fs';
import { telegramWebhookSecret } from '../../lib/runtime/config';
import { handlePreferencesRequest } from '../../lib/subscriptions/handle-preferences-request';
import { handleTelegramUpdate } from '../../lib/subscriptions/handle-telegram-update';
import { preferencesUrl } from '../../lib/subscribers/link-token';
import { readChannels, type Channel } from '../../lib/channels/channel';
import { createHarness, type Harness } from '../support/harness';
import { postingChannelTest, startChannelReceiver, type ChannelReceiver } from '../support/channel-receiver';

export const NOW = new Date('2026-12-06T10:00:00Z');
export const BOT_TOKEN = '123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const BOT = 'ScoutTestBot';
/** What Telegram sends back on every update: derived from the harness's LINK_SECRET and the bot's token, as in production. */
export const TELEGRAM_SECRET = telegramWebhookSecret({ LINK_SECRET: 'test-link-secret-0123456789', TELEGRAM_BOT_TOKEN: BOT_TOKEN });

/** A fresh Scout with loopback channels allowed and a Telegram bot whose API is the receiver. */
export async function channelScout(): Promise<{ h: Harness; receiver: ChannelReceiver }> {
  const receiver = await startChannelReceiver();
  const h = await createHarness({
    CHANNEL_ALLOW_LOOPBACK: 'true',
    TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    TELEGRAM_BOT_USERNAME: BOT,
    TELEGRAM_API_BASE_URL: receiver.url,
  });
  return { h, receiver };
}

export type Page = { status: number; html: string };

export function pages(h: Harness, receiver: ChannelReceiver) {
  const sendChannelTest = postingChannelTest({ telegramApi: receiver.url, botToken: BOT_TOKEN });
  const link = (uid: string) => preferencesUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW });
  const respond = async (request: Request): Promise<Page> => {
    const response = await handlePreferencesRequest(request, { db: h.db, config: h.config, now: NOW, sendChannelTest });
    return { status: response.status, html: await response.text() };
  };
  return {
    link,
    get: (uid: string) => respond(new Request(link(uid))),
    post: (uid: string, fields: Record<string, string>, options: { now?: Date; headers?: Record<string, string> } = {}) =>
      handlePreferencesRequest(
        new Request(link(uid), {
          method: 'POST',
          body: new URLSearchParams(fields).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
        }),
        { db: h.db, config: h.config, now: options.now ?? NOW, sendChannelTest },
      ).then(async (r) => ({ status: r.status, html: await r.text() })),
    channels: async (uid: string): Promise<Channel[]> => readChannels((await h.db.collection('users').doc(uid).get()).get('channels')),
    telegram: (body: unknown, headers: Record<string, string> = { 'x-telegram-bot-api-secret-token': TELEGRAM_SECRET }) =>
      handleTelegramUpdate(
        new Request('http://localhost:3000/api/telegram', {
          method: 'POST',
          body: typeof body === 'string' ? body : JSON.stringify(body),
          headers: { 'content-type': 'application/json', ...headers },
        }),
        { db: h.db, config: h.config, now: NOW, sendChannelTest },
      ),
  };
}

/** The hidden `seen` of a channel's forms on a page. */
export const seenOn = (html: string) => html.match(/name="seen" value="([^"]+)"/)?.[1] ?? '';

/** The captured private-chat update (fixtures/telegram), with `text` and the update id replaced. */
export function capturedUpdate(text: string, updateId = 841266257): Record<string, unknown> {
  const update = JSON.parse(readFileSync(new URL('./fixtures/telegram/private-text-message.json', import.meta.url), 'utf8'));
  return { ...update, update_id: updateId, message: { ...update.message, text } };
}

export const CHAT_ID = '234140659';
