import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ChannelSendOutcome } from '../../../lib/channels/channel-outcome';

/** A request as the server received it. */
export type ReceivedRequest = { method: string; url: string; headers: IncomingMessage['headers']; body: string };

/** One captured platform answer (test/channels/fixtures/<platform>/answers.json). */
export type CapturedAnswer = {
  name: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  expect: Partial<ChannelSendOutcome> & { rateLimit?: { remaining: number; resetAfterMs: number } };
  source: string;
};

export const capturedAnswers = (platform: string): CapturedAnswer[] =>
  JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', platform, 'answers.json'), 'utf8')) as CapturedAnswer[];

type Handler = (request: ReceivedRequest, res: ServerResponse) => void;

/**
 * A real HTTP server on 127.0.0.1 standing in for a platform: it records every request it
 * receives, whole, and answers with the handler a test sets (by default, 200 `ok`).
 */
export async function startAnswerServer() {
  const received: ReceivedRequest[] = [];
  let handler: Handler = (_, res) => res.end('ok');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      handler(request, res);
    });
    // A client that hangs up mid-answer (the byte cap, a timeout) is expected here.
    res.on('error', () => undefined);
  });
  server.on('clientError', (_, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    received,
    /** Answers every request with `handler` from now on. */
    answerWith(next: Handler) {
      handler = next;
    },
    /** Answers every request with this captured answer, verbatim. */
    replay(answer: Pick<CapturedAnswer, 'status' | 'headers' | 'body'>) {
      handler = (_, res) => {
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type AnswerServer = Awaited<ReturnType<typeof startAnswerServer>>;
