import { Socket } from 'node:net';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { createPublicOnlyConnector, SOURCE_HTTP_VERSION } from '../../http/address-guard';
import type { ChannelSendOutcome } from '../channel-outcome';
import { isLoopbackHost } from '../destination';

/**
 * One POST to a platform, and what came back, for the platform's transport to classify. Every
 * connection goes through the address guard's public-only connector, except to this machine when
 * CHANNEL_ALLOW_LOOPBACK is set. Nothing is followed (a redirect is an answer like any other), the
 * whole exchange has one deadline, and at most ANSWER_BYTE_CAP bytes of the answer are read.
 *
 * Whether a failure may have delivered is decided by one fact: was the connection made? Before it
 * (refused, DNS, a blocked address, a TLS failure, a deadline while connecting) nothing can have
 * reached the platform, so a retry cannot duplicate. After it, the request may have been read.
 */
export const DEFAULT_CHANNEL_TIMEOUT_MS = 10_000;
/** Enough for any platform's answer (Discord's message object is a few KiB); a hostile receiver's flood stops here. */
export const ANSWER_BYTE_CAP = 64 * 1024;

export type ChannelAnswer = {
  status: number;
  /** Lower-cased names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** The first ANSWER_BYTE_CAP bytes, as UTF-8. */
  body: string;
  /** More arrived than the cap, or the deadline cut the body short. */
  truncated: boolean;
};

export type ChannelExchange = { answer: ChannelAnswer } | { outcome: ChannelSendOutcome };

export type ChannelPost = {
  url: URL;
  headers: Record<string, string>;
  body: string;
  /** Names the platform in errors ("slack", "telegram"); errors never carry the URL. */
  platform: string;
  allowLoopback: boolean;
  timeoutMs: number;
};

/**
 * An agent for one send, noting when its connection is made and keeping every socket it opens: a
 * deadline that passes mid-handshake leaves undici's socket open (a receiver that stalls TLS would
 * otherwise pile them up), so the send closes them itself when it is done.
 */
function agentFor(url: URL, allowLoopback: boolean, onConnected: () => void) {
  const connector =
    allowLoopback && isLoopbackHost(url.hostname) ? buildConnector({ ...SOURCE_HTTP_VERSION }) : createPublicOnlyConnector();
  const sockets: Socket[] = [];
  const agent = new Agent({
    ...SOURCE_HTTP_VERSION,
    connect: (options, callback) => {
      const socket: unknown = connector(options, (...result) => {
        if (!result[0]) onConnected();
        callback(...result);
      });
      if (socket instanceof Socket) sockets.push(socket);
    },
  });
  const close = async () => {
    for (const socket of sockets) socket.destroy();
    await agent.destroy().catch(() => undefined);
  };
  return { agent, close };
}

/** Error codes anywhere in a failure: undici wraps them in `cause`, Node's address racing in an AggregateError. */
function errorCodes(error: unknown, depth = 0): string[] {
  if (!error || typeof error !== 'object' || depth > 4) return [];
  const e = error as { code?: unknown; cause?: unknown; errors?: unknown };
  const own = typeof e.code === 'string' ? [e.code] : [];
  const nested = Array.isArray(e.errors) ? e.errors.flatMap((inner) => errorCodes(inner, depth + 1)) : [];
  return [...own, ...errorCodes(e.cause, depth + 1), ...nested];
}

const NOT_CONNECTED: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
};

/**
 * A failure without an answer. A blocked address is `rejected`: the destination resolves to a
 * private address, and trying again within a message's attempts will not change that (the
 * channel is not disabled: DNS can be fixed). Anything else before the connection is `refused`;
 * after it, `unknown`.
 */
function failureOutcome(error: unknown, post: ChannelPost, connected: boolean, timedOut: boolean): ChannelSendOutcome {
  const codes = errorCodes(error);
  const name = post.platform;
  if (codes.includes('ERR_BLOCKED_ADDRESS')) return { status: 'rejected', error: `${name}: blocked address` };
  if (!connected) {
    if (timedOut) return { status: 'refused', retryAfterMs: null, error: `${name}: timed out connecting after ${post.timeoutMs} ms` };
    const known = codes.map((code) => NOT_CONNECTED[code]).find(Boolean);
    const tls = codes.some((code) => /CERT|TLS|SSL/.test(code));
    return { status: 'refused', retryAfterMs: null, error: `${name}: ${known ?? (tls ? 'TLS error' : 'could not connect')}` };
  }
  if (timedOut) return { status: 'unknown', error: `${name}: no answer within ${post.timeoutMs} ms` };
  return { status: 'unknown', error: `${name}: connection lost before an answer` };
}

/** Reads at most `cap` bytes, then stops the stream; a deadline or reset mid-body keeps what arrived. */
async function readAnswerBody(body: Dispatcher.ResponseData['body'], cap: number): Promise<{ text: string; truncated: boolean }> {
  const parts: Buffer[] = [];
  let total = 0;
  let truncated = false;
  try {
    for await (const piece of body) {
      const bytes = piece as Buffer;
      const room = cap - total;
      if (bytes.byteLength > room) {
        parts.push(bytes.subarray(0, room));
        truncated = true;
        break;
      }
      parts.push(bytes);
      total += bytes.byteLength;
    }
  } catch {
    truncated = true;
  } finally {
    body.destroy();
  }
  return { text: Buffer.concat(parts).toString('utf8'), truncated };
}

const flatHeaders = (headers: Dispatcher.ResponseData['headers']): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value]],
    ),
  );

/** POSTs once and returns the answer, or the outcome of a failure that left none. */
export async function postToChannel(post: ChannelPost): Promise<ChannelExchange> {
  let connected = false;
  const { agent, close } = agentFor(post.url, post.allowLoopback, () => {
    connected = true;
  });
  const deadline = AbortSignal.timeout(post.timeoutMs);
  try {
    const response = await request(post.url, {
      method: 'POST',
      headers: post.headers,
      body: post.body,
      dispatcher: agent,
      signal: deadline,
    });
    const { text, truncated } = await readAnswerBody(response.body, ANSWER_BYTE_CAP);
    return { answer: { status: response.statusCode, headers: flatHeaders(response.headers), body: text, truncated } };
  } catch (error) {
    return { outcome: failureOutcome(error, post, connected, deadline.aborted) };
  } finally {
    await close();
  }
}

/** Text from an answer made safe to store and show: one line, printable, short. */
export function safeText(text: string, max = 120): string {
  const line = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Seconds as a platform writes them ("5", "0.5") in milliseconds; null when absent or unreadable. */
export function secondsToMs(value: unknown): number | null {
  const seconds = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : null;
}

/** The answer's JSON body, or null: an answer that is not JSON is classified by its status alone. */
export function jsonBody(answer: ChannelAnswer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(answer.body);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** What every platform's 3xx means: Scout never follows one (it could lead anywhere), and it will not change. */
export const redirectOutcome = (platform: string, status: number): ChannelSendOutcome => ({
  status: 'rejected',
  error: `${platform} ${status} redirect not followed`,
});
