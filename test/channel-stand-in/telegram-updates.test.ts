import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { botApi, openStandIn, postJson } from './stand-in-fixture';

type Seen = { headers: IncomingMessage['headers']; body: any; path: string };

/** A real bot webhook on loopback: records what arrives and answers with `status`. */
async function startReceiver(status = 200) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), path: req.url ?? '' });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'bound' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/telegram`, seen };
}

describe('channel stand-in: a user writing to the bot reaches its webhook as a real Telegram Update', () => {
  it('posts the Update to the webhook set by setWebhook, with the secret header, and reports its answer', async () => {
    const clock = Date.parse('2026-12-01T08:00:00Z');
    const standIn = await openStandIn({ now: () => clock });
    const receiver = await startReceiver();
    await botApi(standIn.url, 'setWebhook', { url: receiver.url, secret_token: 'stand_in_webhook_secret' });

    const delivery = await standIn.telegramMessage({
      chatId: 900069535,
      text: '/start tok_AbC-123',
      from: { firstName: 'Grace', username: 'grace_h' },
    });
    expect(delivery).toMatchObject({ delivered: true, status: 200, body: 'bound' });
    const [arrived] = receiver.seen;
    expect(arrived.path).toBe('/api/telegram');
    expect(arrived.headers['x-telegram-bot-api-secret-token']).toBe('stand_in_webhook_secret');
    expect(arrived.headers['content-type']).toBe('application/json');
    expect(arrived.body).toEqual({
      update_id: expect.any(Number),
      message: {
        message_id: 1,
        from: { id: 900069535, is_bot: false, first_name: 'Grace', username: 'grace_h', language_code: 'en' },
        chat: { id: 900069535, first_name: 'Grace', username: 'grace_h', type: 'private' },
        date: clock / 1000,
        text: '/start tok_AbC-123',
        entities: [{ offset: 0, length: 6, type: 'bot_command' }],
      },
    });
    expect(delivery.update).toEqual(arrived.body);

    // Update ids only grow; a chat's message ids are shared by both directions, as in Telegram.
    const reply = await (await botApi(standIn.url, 'sendMessage', { chat_id: 900069535, text: 'Bound' })).json();
    expect(reply.result.message_id).toBe(2);
    expect(reply.result.chat).toEqual({ id: 900069535, first_name: 'Grace', username: 'grace_h', type: 'private' });
    await standIn.telegramMessage({ chatId: 900069535, text: 'thanks' });
    const second = receiver.seen[1].body;
    expect(second.update_id).toBe(arrived.body.update_id + 1);
    expect(second.message.message_id).toBe(3);
    expect(second.message.entities).toBeUndefined();
  });

  it('through the control API, /stop included; a webhook refusing the secret is reported as not delivered', async () => {
    const standIn = await openStandIn();
    const receiver = await startReceiver(401);
    await botApi(standIn.url, 'setWebhook', { url: receiver.url, secret_token: 'wrong_secret_for_scout' });
    const answer = await postJson(`${standIn.url}/_stand-in/telegram/message`, { chatId: 55, text: '/stop' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      delivered: false,
      status: 401,
      update: { message: { text: '/stop', entities: [{ offset: 0, length: 5, type: 'bot_command' }] } },
    });
    expect(receiver.seen).toHaveLength(1);
    expect((await postJson(`${standIn.url}/_stand-in/telegram/message`, { chatId: 55 })).status).toBe(422);
  });

  it('without a webhook, or with one nobody listens on, nothing is delivered and it says why', async () => {
    const standIn = await openStandIn();
    expect(await standIn.telegramMessage({ chatId: 1, text: '/start x' })).toMatchObject({
      delivered: false,
      status: null,
      error: expect.stringMatching(/setWebhook/),
    });
    const closed = await startReceiver();
    await botApi(standIn.url, 'setWebhook', { url: closed.url.replace(/:\d+\//, ':1/') });
    expect(await standIn.telegramMessage({ chatId: 1, text: '/start x' })).toMatchObject({ delivered: false, status: null });
  });
});
