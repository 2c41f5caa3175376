import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelSendOutcome } from '../../lib/channels/channel-outcome';
import type { SendChannelTest } from '../../lib/subscriptions/channel-test-message';

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

export async function startChannelReceiver(): Promise<ChannelReceiver> {
  const hanging: IncomingMessage[] = [];
  const receiver = {
    url: '',
    received: [] as Received[],
    answer: (() => ({ status: 200, body: 'ok' })) as (path: string) => Answer,
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
 * A SendChannelTest that really posts over HTTP (to the destination; for Telegram, to the Bot API
 * at `telegramApi`), a minimal body carrying the code, and classifies the answer as the transports
 * do: 2xx sent, 404/410 (Telegram 403) gone, 429 refused, other 4xx rejected, 5xx and timeouts unknown.
 */
export function postingChannelTest(input: { telegramApi: string; botToken: string; timeoutMs?: number }): SendChannelTest {
  return async (target, content) => {
    const text = content.code ? `Your Scout code: ${content.code}` : 'Connected to Scout.';
    const [url, body] =
      target.kind === 'telegram'
        ? [`${input.telegramApi}/bot${input.botToken}/sendMessage`, { chat_id: target.destination, text }]
        : target.kind === 'slack'
          ? [target.destination, { text }]
          : target.kind === 'discord'
            ? [target.destination, { content: text }]
            : [target.destination, { type: 'scout.test', data: { preferences: content.links.preferences } }];
    let status: number;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(target.secret ? { 'webhook-id': 'msg_test' } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(input.timeoutMs ?? 2_000),
      });
      status = response.status;
      await response.text();
    } catch (error) {
      return { status: 'unknown', error: error instanceof Error ? error.name : 'failed' };
    }
    return classify(target.kind === 'telegram', status);
  };
}

function classify(telegram: boolean, status: number): ChannelSendOutcome {
  if (status >= 200 && status < 300) return { status: 'sent', detail: null };
  if (status === 429) return { status: 'refused', retryAfterMs: null, error: '429' };
  if (status === 410 || (telegram ? status === 403 : status === 404)) return { status: 'gone', error: String(status) };
  if (status >= 400 && status < 500) return { status: 'rejected', error: String(status) };
  return { status: 'unknown', error: String(status) };
}

/** The 6-digit code in what arrived at `path`, the latest first. */
export const codeSentTo = (receiver: ChannelReceiver, path: string) =>
  [...receiver.received]
    .reverse()
    .find((r) => r.path === path && /\b\d{6}\b/.test(r.body))
    ?.body.match(/\b(\d{6})\b/)?.[1] ?? null;
