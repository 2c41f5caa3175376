import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VERIFY_WINDOW_MS } from '../../lib/channels/channel';
import { unsubscribeUrl } from '../../lib/subscribers/link-token';
import { BOT_TEXT, handleTelegramUpdate } from '../../lib/subscriptions/handle-telegram-update';
import { unsubscribeSubscriber } from '../../lib/subscriptions/unsubscribe';
import type { Harness } from '../support/harness';
import type { ChannelReceiver } from '../support/channel-receiver';
import { postingChannelTest } from '../support/channel-receiver';
import { decodeProfile } from '../../lib/subscribers/match-index';
import { indexEntries } from '../support/match-index';
import { BOT, BOT_TOKEN, capturedUpdate, CHAT_ID, channelScout, NOW, pages, TELEGRAM_SECRET } from './channel-fixture';

let h: Harness;
let receiver: ChannelReceiver;
let p: ReturnType<typeof pages>;

beforeEach(async () => {
  ({ h, receiver } = await channelScout());
  p = pages(h, receiver);
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

const SEND_MESSAGE = `/bot${BOT_TOKEN}/sendMessage`;
/** What the bot said in the chat, in order. */
const repliesIn = (chatId: string) =>
  receiver.received
    .filter((r) => r.path === SEND_MESSAGE)
    .map((r) => JSON.parse(r.body) as { chat_id: string; text: string })
    .filter((m) => String(m.chat_id) === chatId)
    .map((m) => m.text);

/** A subscriber with a Telegram channel waiting, and the token of its start link as the page showed it. */
async function telegramPending() {
  const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
  const page = await p.post(uid, { action: 'channel-add', kind: 'telegram' });
  expect(page.status).toBe(200);
  const token = page.html.match(new RegExp(`https://t\\.me/${BOT}\\?start=([A-Za-z0-9_-]+)`))?.[1];
  expect(token).toHaveLength(32);
  return { uid, token: token!, page };
}

describe('POST /api/telegram', () => {
  it('binds the chat on /start with the page’s token, once, though Telegram delivers the update eight times at once', async () => {
    const { uid, token } = await telegramPending();
    const update = capturedUpdate(`/start ${token}`);
    const answers = await Promise.all(Array.from({ length: 8 }, () => p.telegram(update)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const [channel] = await p.channels(uid);
    expect(channel).toMatchObject({
      kind: 'telegram',
      status: 'active',
      destination: CHAT_ID,
      label: '@zhmurko',
      verifyHash: null,
      verifiedAt: NOW,
    });
    expect(repliesIn(CHAT_ID)).toEqual([expect.stringContaining('Connected to Scout')]);
    const entry = (await indexEntries(h.db)).get(uid)!;
    expect(decodeProfile(uid, entry)?.routes).toEqual([{ id: channel.id, kind: 'telegram', instant: true, digest: false }]);
    // A redelivery later is as silent.
    expect((await p.telegram(update)).status).toBe(200);
    expect(repliesIn(CHAT_ID)).toHaveLength(1);
  });

  it('tells another chat that the link was used, and an expired or unknown link why it does nothing, naming no one', async () => {
    const { uid, token } = await telegramPending();
    const late = handleTelegramUpdate(
      new Request('http://localhost:3000/api/telegram', {
        method: 'POST',
        body: JSON.stringify(capturedUpdate(`/start ${token}`)),
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TELEGRAM_SECRET },
      }),
      {
        db: h.db,
        config: h.config,
        now: new Date(NOW.getTime() + VERIFY_WINDOW_MS),
        sendChannelTest: postingChannelTest({ telegramApi: receiver.url, botToken: BOT_TOKEN }),
      },
    );
    expect((await late).status).toBe(200);
    expect(repliesIn(CHAT_ID)).toEqual([BOT_TEXT.expired]);
    expect((await p.channels(uid))[0].status).toBe('verifying');

    await p.telegram(capturedUpdate('/start AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(repliesIn(CHAT_ID).at(-1)).toBe(BOT_TEXT.unknown);

    await p.telegram(capturedUpdate(`/start ${token}`));
    const other = capturedUpdate(`/start ${token}`, 841266300) as { message: { chat: Record<string, unknown> } };
    other.message.chat = { ...other.message.chat, id: 99 };
    await p.telegram(other);
    expect(repliesIn('99')).toEqual([BOT_TEXT.used]);
    expect(repliesIn('99').join(' ')).not.toContain('ada');
  });

  it('answers 401 to a wrong or missing secret and changes nothing', async () => {
    const { token } = await telegramPending();
    const before = await h.dump(['users', 'channelLinks']);
    expect(
      (await p.telegram(capturedUpdate(`/start ${token}`), { 'x-telegram-bot-api-secret-token': 'wrong-secret-0123456789' })).status,
    ).toBe(401);
    expect((await p.telegram(capturedUpdate(`/start ${token}`), {})).status).toBe(401);
    expect(await h.dump(['users', 'channelLinks'])).toEqual(before);
    expect(repliesIn(CHAT_ID)).toEqual([]);
  });

  it('answers 404 when the bot is not configured', async () => {
    const config = { ...h.config, TELEGRAM_BOT_TOKEN: undefined, TELEGRAM_BOT_USERNAME: undefined };
    const response = await handleTelegramUpdate(
      new Request('http://localhost:3000/api/telegram', {
        method: 'POST',
        body: '{}',
        headers: { 'x-telegram-bot-api-secret-token': TELEGRAM_SECRET },
      }),
      { db: h.db, config, now: NOW, sendChannelTest: postingChannelTest({ telegramApi: receiver.url, botToken: BOT_TOKEN }) },
    );
    expect(response.status).toBe(404);
  });

  it('/stop removes every channel bound to the chat and its link, and says so', async () => {
    const { uid, token } = await telegramPending();
    await p.telegram(capturedUpdate(`/start ${token}`));
    expect((await p.channels(uid))[0].status).toBe('active');
    expect((await p.telegram(capturedUpdate('/stop', 841266258))).status).toBe(200);
    expect(await p.channels(uid)).toEqual([]);
    expect(repliesIn(CHAT_ID).at(-1)).toBe(BOT_TEXT.stopped);
    const links = await h.db.collection('channelLinks').where('chatId', '==', CHAT_ID).get();
    expect(links.size).toBe(0);
    await p.telegram(capturedUpdate('/stop', 841266259));
    expect(repliesIn(CHAT_ID).at(-1)).toBe(BOT_TEXT.nothingToStop);
  });

  it('answers anything else with help, and ignores an update that is not a private text message with 200', async () => {
    await p.telegram(capturedUpdate('hello'));
    expect(repliesIn(CHAT_ID)).toEqual([BOT_TEXT.help]);
    const callback = readFileSync(new URL('./fixtures/telegram/callback-query.json', import.meta.url), 'utf8');
    expect((await p.telegram(callback)).status).toBe(200);
    expect((await p.telegram('not json')).status).toBe(200);
    expect(repliesIn(CHAT_ID)).toHaveLength(1);
  });

  it('limits replies per chat', async () => {
    for (let i = 0; i < 14; i++) await p.telegram(capturedUpdate('hello', 841266400 + i));
    expect(repliesIn(CHAT_ID)).toHaveLength(10);
  });

  it('unsubscribing deletes the chat’s link with the channel: /stop then finds nothing', async () => {
    const { uid, token } = await telegramPending();
    await p.telegram(capturedUpdate(`/start ${token}`));
    const link = new URL(unsubscribeUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW }));
    await unsubscribeSubscriber(h.db, { token: link.searchParams.get('token'), secret: h.config.LINK_SECRET, now: NOW });
    expect((await h.db.collection('channelLinks').where('chatId', '==', CHAT_ID).get()).size).toBe(0);
    expect(await p.channels(uid)).toEqual([]);
  });

  it('a new link replaces the old one: the old token no longer binds', async () => {
    const { uid, token, page } = await telegramPending();
    const seen = page.html.match(/name="seen" value="([^"]+)"/)![1];
    const [channel] = await p.channels(uid);
    const renewed = await p.post(uid, { action: 'channel-new-link', channel: channel.id, seen });
    const fresh = renewed.html.match(/\?start=([A-Za-z0-9_-]+)/)![1];
    expect(fresh).not.toBe(token);
    await p.telegram(capturedUpdate(`/start ${token}`));
    expect(repliesIn(CHAT_ID)).toEqual([BOT_TEXT.unknown]);
    await p.telegram(capturedUpdate(`/start ${fresh}`, 841266500));
    expect((await p.channels(uid))[0].status).toBe('active');
  });
});
