import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelSendOutcome } from '../../../lib/channels/channel-outcome';
import { sendChannelRequest } from '../../../lib/channels/transports/send-channel-request';
import { capturedAnswers, startAnswerServer, type AnswerServer } from './answer-server';

// The Bot API puts Scout's bot token in every URL. No outcome, whatever the answer or failure,
// may carry it: errors are stored on message rows and shown on the ops page.
const BOT_TOKEN = '7012345678:AAFx-SECRET_token-do-not-show';
let server: AnswerServer;
beforeAll(async () => {
  server = await startAnswerServer();
});
afterAll(async () => server.close());

const send = (apiBaseUrl: string, timeoutMs = 2000) =>
  sendChannelRequest(
    { kind: 'telegram', destination: '-1001234567890', secret: null },
    { body: '{"chat_id":"-1001234567890","text":"hi"}', messageId: 'msg_1', attempt: 1 },
    { allowLoopback: true, telegram: { apiBaseUrl, botToken: BOT_TOKEN }, timeoutMs },
  );

const expectNoToken = (outcome: ChannelSendOutcome) => {
  expect(JSON.stringify(outcome)).not.toContain(BOT_TOKEN);
  expect(JSON.stringify(outcome)).not.toContain('AAFx');
};

describe("the bot token never appears in a Telegram send's outcome", () => {
  it.each(capturedAnswers('telegram').map((answer) => [answer.name, answer] as const))('captured answer: %s', async (_, answer) => {
    server.replay(answer);
    expectNoToken(await send(server.origin));
  });

  it('an answer that echoes the token back (a misbehaving proxy) is scrubbed', async () => {
    server.answerWith((request, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, error_code: 400, description: `Bad Request: no such method ${request.url}` }));
    });
    const outcome = await send(server.origin);
    expect(outcome).toMatchObject({ status: 'rejected' });
    expectNoToken(outcome);
  });

  it('redirects, timeouts, resets and refused connections', async () => {
    server.answerWith((_, res) => {
      res.writeHead(302, { location: `${server.origin}/bot${BOT_TOKEN}/elsewhere` });
      res.end();
    });
    expectNoToken(await send(server.origin));
    server.answerWith(() => undefined);
    expectNoToken(await send(server.origin, 200));
    server.answerWith((_, res) => res.socket?.destroy());
    expectNoToken(await send(server.origin));
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expectNoToken(await send(`http://127.0.0.1:${port}`));
  });
});
