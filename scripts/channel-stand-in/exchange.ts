import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../mail-sink/http-io';
import type { FaultBook } from './fault-book';
import type { ReceivedFilter, ReceivedRequest, StandInPlatform } from './types';

/** One platform request, read whole, before the platform decides its answer. */
export type PlatformRequest = {
  platform: StandInPlatform;
  destination: string;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  rawBody: string;
  body: unknown;
  at: number;
};

export type Answer = { status: number; contentType: string; body: string; headers?: Record<string, string> };

/** What a platform answers: its own shapes for a refusal, and its judgement of the request itself. */
export type PlatformAnswers = {
  rateLimited(request: PlatformRequest, retryAfterSeconds: number): Answer;
  serverError(request: PlatformRequest, status: number): Answer;
  gone(request: PlatformRequest, status: number | null): Answer;
  /** Strict limits, validation, then success; `accepted` when the platform took the message. */
  judge(request: PlatformRequest): { answer: Answer; accepted: boolean };
};

export const json = (status: number, value: unknown, headers?: Record<string, string>): Answer => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify(value),
  headers,
});

export const text = (status: number, body: string, headers?: Record<string, string>): Answer => ({
  status,
  contentType: 'text/plain; charset=utf-8',
  body,
  headers,
});

/** Bodies a platform would cap long before this; a runaway sender should not fill the stand-in's heap. */
const MAX_PLATFORM_BODY_BYTES = 1024 * 1024;

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** JSON, or a form's fields (Telegram and Slack both take forms); null for anything else. */
function parseBody(raw: string, contentType: string): unknown {
  if (contentType.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  try {
    return raw.trim() === '' ? null : (JSON.parse(raw) as unknown);
  } catch {
    return null;
  }
}

/** Reads the request; null once a 413 has been answered for a body past the cap. */
export async function readPlatformRequest(
  req: IncomingMessage,
  res: ServerResponse,
  where: { platform: StandInPlatform; destination: string; path: string; query: URLSearchParams; at: number },
): Promise<PlatformRequest | null> {
  const read = await readBody(req, MAX_PLATFORM_BODY_BYTES);
  if (!read.ok) {
    res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8' }).end('request entity too large');
    return null;
  }
  const headers = headersOf(req);
  const rawBody = read.raw.toString('utf8');
  return { ...where, method: req.method ?? 'POST', headers, rawBody, body: parseBody(rawBody, headers['content-type'] ?? '') };
}

export function writeAnswer(res: ServerResponse, answer: Answer) {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(answer.status, {
    ...answer.headers,
    'content-type': answer.contentType,
    'content-length': Buffer.byteLength(answer.body),
  });
  res.end(answer.body);
}

/** Every request each destination got, in arrival order. */
export function createReceivedLog() {
  let log: ReceivedRequest[] = [];
  let seq = 0;
  return {
    record(request: PlatformRequest, result: Pick<ReceivedRequest, 'status' | 'outcome' | 'accepted'>): ReceivedRequest {
      const entry: ReceivedRequest = {
        seq: ++seq,
        platform: request.platform,
        destination: request.destination,
        method: request.method,
        path: request.path,
        at: new Date(request.at).toISOString(),
        headers: request.headers,
        rawBody: request.rawBody,
        body: request.body,
        ...result,
      };
      log.push(entry);
      return entry;
    },
    list(filter: ReceivedFilter = {}): ReceivedRequest[] {
      return log
        .filter((e) => (filter.all || e.accepted) && (filter.destination === undefined || e.destination === filter.destination))
        .filter((e) => filter.platform === undefined || e.platform === filter.platform)
        .map((e) => structuredClone(e));
    },
    clear() {
      log = [];
    },
  };
}

export type ReceivedLog = ReturnType<typeof createReceivedLog>;

/**
 * Answers a message-carrying request as its platform would, under any fault armed for its
 * destination, and records it. `drop` records the message as taken, then cuts the socket without
 * a word (the sender cannot tell whether it arrived); `hang` records it as not taken and never
 * answers (the sender's timeout decides).
 */
export function serve(
  ctx: { faults: FaultBook; log: ReceivedLog },
  res: ServerResponse,
  request: PlatformRequest,
  answers: PlatformAnswers,
) {
  const fault = ctx.faults.take(request.destination, request.platform);
  if (fault?.kind === 'drop') {
    ctx.log.record(request, { status: null, outcome: 'dropped', accepted: true });
    res.socket?.destroy();
    return;
  }
  if (fault?.kind === 'hang') {
    ctx.log.record(request, { status: null, outcome: 'hung', accepted: false });
    return;
  }
  let answer: Answer;
  let accepted = false;
  if (fault?.kind === 'rate-limit') answer = answers.rateLimited(request, fault.retryAfterSeconds);
  else if (fault?.kind === 'server-error') answer = answers.serverError(request, fault.status ?? 500);
  else if (fault?.kind === 'gone') answer = answers.gone(request, fault.status);
  else ({ answer, accepted } = answers.judge(request));
  ctx.log.record(request, { status: answer.status, outcome: 'answered', accepted });
  writeAnswer(res, answer);
}
