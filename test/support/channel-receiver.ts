import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SendChannelTest } from '../../lib/subscriptions/channel-test-message';
import { createChannelSender, sendChannelTestVia } from '../../lib/messages/channel-sender';

/** One request as it arrived at the receiver. */
export type Received = { path: string; body: string; headers: IncomingMessage['headers'] };

/** What the receiver answers a request: a status (and body), or nothing at all. */
export type Answer = { status: number; body?: string } | 'hang';

/**
 * A real HTTP server on 127.0.0.1 standing in for Slack's and Discord's webhooks, a subscriber's
 * webhook endpoint and Telegram's Bot API at once: it records what arrives and answers as the test
 * sets (`answer`), 200 by default.
 */
export type ChannelReceiver = {
  url: string;
  received: Received[];
  answer: (path: string) => Answer;
  setAnswer(answer: (path: string) => Answer): void;
  close(): Promise<void>;
};

/** What each platform answers a message it took: Telegram's Bot API its JSON, Slack `ok`, Discord and webhooks 200. */
const platformAnswer = (path: string): Answer =>
  /^\/bot[^/]+\/sendMessage/.test(path)
    ? { status: 200, body: '{"ok":true,"result":{"message_id":1,"date":0,"chat":{"id":1,"type":"private"}}}' }
    : { status: 200, body: 'ok' };

export async function startChannelReceiver(): Promise<ChannelReceiver> {
  const hanging: IncomingMessage[] = [];
  const receiver = {
    url: '',
    received: [] as Received[],
    answer: platformAnswer,
    setAnswer(answer: (path: string) => Answer) {
      receiver.answer = answer;
    },
    close: async () => {
      for (const request of hanging) request.socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      receiver.received.push({ path, body: Buffer.concat(chunks).toString('utf8'), headers: request.headers });
      const answer = receiver.answer(path);
      if (answer === 'hang') return void hanging.push(request);
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/**
 * Scout's own SendChannelTest (the production one: the formats, the transports and the limiter),
 * with loopback allowed and Telegram's Bot API at `telegramApi`.
 */
export function postingChannelTest(input: { telegramApi: string; botToken: string; timeoutMs?: number }): SendChannelTest {
  const sender = createChannelSender(
    {
      CHANNEL_ALLOW_LOOPBACK: true,
      TELEGRAM_BOT_TOKEN: input.botToken,
      TELEGRAM_BOT_USERNAME: 'ScoutTestBot',
      TELEGRAM_API_BASE_URL: input.telegramApi,
    },
    { clock: Date.now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), timeoutMs: input.timeoutMs ?? 2_000 },
  );
  return sendChannelTestVia(sender);
}

/** The 6-digit code in what arrived at `path`, the latest first. */
export const codeSentTo = (receiver: ChannelReceiver, path: string) =>
  [...receiver.received]
    .reverse()
    .find((r) => r.path === path && /\b\d{6}\b/.test(r.body))
    ?.body.match(/\b(\d{6})\b/)?.[1] ?? null;
