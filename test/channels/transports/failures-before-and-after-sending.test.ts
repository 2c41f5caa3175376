import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_BYTE_CAP, postToChannel, type ChannelPost } from '../../../lib/channels/transports/channel-http';
import { sendChannelRequest, type ChannelHttpDeps } from '../../../lib/channels/transports/send-channel-request';
import { until } from '../../support/deferred';
import { startAnswerServer, type AnswerServer } from './answer-server';

// What a failure without a usable answer means: before the connection nothing can have been
// posted (`refused`, or `rejected` for a blocked address); after it, the post may have landed
// (`unknown`). Every case runs against real sockets on 127.0.0.1.
let server: AnswerServer;
let elsewhere: AnswerServer;
beforeAll(async () => {
  [server, elsewhere] = await Promise.all([startAnswerServer(), startAnswerServer()]);
});
afterAll(async () => Promise.all([server.close(), elsewhere.close()]));

const loopback: ChannelHttpDeps = { allowLoopback: true, telegram: null, timeoutMs: 2000 };
const request = { body: '{"type":"alert"}', messageId: 'msg_1', attempt: 1 };
const webhookTo = (url: string) => ({ kind: 'webhook' as const, destination: url, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
const post = (url: string, extra: Partial<ChannelPost> = {}) =>
  postToChannel({ url: new URL(url), headers: {}, body: '{}', platform: 'webhook', allowLoopback: false, timeoutMs: 2000, ...extra });

describe('nothing reaches this machine or a private network without CHANNEL_ALLOW_LOOPBACK', () => {
  it.each(['127.0.0.1', 'localhost', '[::1]'])('a connection to %s is refused while connecting, and nothing arrives', async (host) => {
    const before = server.received.length;
    const exchange = await post(`http://${host}:${server.port}/in`);
    expect(exchange).toEqual({ outcome: { status: 'rejected', error: 'webhook: blocked address' } });
    expect(server.received.length).toBe(before);
  });

  it('the cloud metadata address is refused before any packet leaves', async () => {
    const started = Date.now();
    expect(await post('http://169.254.169.254/latest/meta-data/')).toEqual({
      outcome: { status: 'rejected', error: 'webhook: blocked address' },
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("Telegram's API address goes through the same guard", async () => {
    const before = server.received.length;
    const outcome = await sendChannelRequest({ kind: 'telegram', destination: '42', secret: null }, request, {
      allowLoopback: false,
      telegram: { apiBaseUrl: server.origin, botToken: '1:secret' },
    });
    expect(outcome).toEqual({ status: 'rejected', error: 'telegram: blocked address' });
    expect(server.received.length).toBe(before);
  });
});

describe('a redirect is an answer, never followed', () => {
  it.each([301, 302, 307, 308])('%i to another server: rejected, and that server receives nothing', async (status) => {
    server.answerWith((_, res) => {
      res.writeHead(status, { location: `${elsewhere.origin}/collect` });
      res.end();
    });
    const outcome = await sendChannelRequest(webhookTo(`${server.origin}/in`), request, loopback);
    expect(outcome).toEqual({ status: 'rejected', error: `webhook ${status} redirect not followed` });
    expect(elsewhere.received).toHaveLength(0);
  });

  it('the same for Slack', async () => {
    server.answerWith((_, res) => {
      res.writeHead(302, { location: `${elsewhere.origin}/services/T0/B0/x` });
      res.end();
    });
    const slack = { kind: 'slack' as const, destination: `${server.origin}/services/T0A1/B0E4/abc`, secret: null };
    expect(await sendChannelRequest(slack, request, loopback)).toEqual({ status: 'rejected', error: 'slack 302 redirect not followed' });
    expect(elsewhere.received).toHaveLength(0);
  });
});

describe('a hostile or broken receiver', () => {
  it('answering 10 MB is read only up to the byte cap', async () => {
    const tenMegabytes = Buffer.alloc(10 * 1024 * 1024, 'x');
    server.answerWith((_, res) => {
      res.writeHead(200, { 'content-length': String(tenMegabytes.byteLength) });
      res.end(tenMegabytes);
    });
    const exchange = await post(`${server.origin}/in`, { allowLoopback: true });
    if (!('answer' in exchange)) throw new Error(`no answer: ${JSON.stringify(exchange)}`);
    expect(exchange.answer.body.length).toBe(ANSWER_BYTE_CAP);
    expect(exchange.answer.truncated).toBe(true);
    expect(await sendChannelRequest(webhookTo(`${server.origin}/in`), request, loopback)).toEqual({ status: 'sent', detail: null });
  });

  it('that never answers: unknown once the deadline passes (the post may have landed)', async () => {
    server.answerWith(() => undefined);
    const started = Date.now();
    const outcome = await sendChannelRequest(webhookTo(`${server.origin}/in`), request, { ...loopback, timeoutMs: 300 });
    expect(outcome).toEqual({ status: 'unknown', error: 'webhook: no answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('that drops the connection after reading the request: unknown', async () => {
    server.answerWith((_, res) => res.socket?.destroy());
    expect(await sendChannelRequest(webhookTo(`${server.origin}/in`), request, loopback)).toEqual({
      status: 'unknown',
      error: 'webhook: connection lost before an answer',
    });
  });

  it('that answers the status but trickles the body past the deadline: classified by the status', async () => {
    server.answerWith((_, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('o');
    });
    const slack = { kind: 'slack' as const, destination: `${server.origin}/services/T0A1/B0E4/abc`, secret: null };
    expect(await sendChannelRequest(slack, request, { ...loopback, timeoutMs: 300 })).toEqual({ status: 'sent', detail: null });
  });
});

describe('a destination that cannot be connected to was never posted to', () => {
  it('a closed port: refused, so even an instant alert may be tried again', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await sendChannelRequest(webhookTo(`http://127.0.0.1:${port}/in`), request, loopback)).toEqual({
      status: 'refused',
      retryAfterMs: null,
      error: 'webhook: connection refused',
    });
  });

  it('a TLS handshake that never completes: refused once the deadline passes, and its socket closed', async () => {
    // Reads what arrives (the client's hello) and never answers it.
    const silent = createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      expect(await sendChannelRequest(webhookTo(`https://127.0.0.1:${port}/in`), request, { ...loopback, timeoutMs: 300 })).toEqual({
        status: 'refused',
        retryAfterMs: null,
        error: 'webhook: timed out connecting after 300 ms',
      });
      // A receiver that stalls handshakes must not pile up Scout's sockets.
      await until(
        async () => (await new Promise<number>((resolve) => silent.getConnections((_, n) => resolve(n)))) === 0,
        'the socket to close',
        2000,
      );
    } finally {
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('a host that does not resolve: refused', async () => {
    const outcome = await sendChannelRequest(webhookTo('https://scout-test.invalid/in'), request, { ...loopback, allowLoopback: false });
    expect(outcome).toMatchObject({ status: 'refused', retryAfterMs: null });
  });
});
