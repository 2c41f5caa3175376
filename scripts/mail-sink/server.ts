import type { IncomingMessage, ServerResponse } from 'node:http';
import { admitApiCall } from './api-gate';
import { createFaultBook } from './faults';
import { methodNotAllowed, notFound, sendError, sendJson, sendText, startLoopbackServer } from './http-io';
import { createIdempotencyStore } from './idempotency';
import { createMessageStore, toResendEmail } from './message-store';
import { createRateLimiter } from './rate-limit';
import { handleSend, type SendContext } from './send-handler';
import { handleFaults, handleInbox, handleMessageCount, handleMessages, handleRequestTally, type SinkRouteContext } from './sink-routes';
import type { MailSink, MailSinkOptions } from './types';

export type { MailSink, MailSinkOptions, MessageFilter, SinkFaults, SinkMessage } from './types';

const EMAIL_PATH = /^\/emails\/([^/]+)$/;

/** Concatenated, not resolved: `new URL('//x', base)` reads "//x" as a host, and may throw. */
function requestUrl(raw = '/'): URL | null {
  try {
    return new URL(`http://sink.invalid${raw.startsWith('/') ? raw : `/${raw}`}`);
  } catch {
    return null;
  }
}

/** A malformed %-escape is just an id that cannot exist, not a server error. */
function decodeId(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/**
 * A Resend-compatible HTTP API on loopback, for dev and tests: point the real SDK at `url`
 * (`new Resend(key, { baseUrl })` or RESEND_BASE_URL). All state belongs to this one sink.
 */
export async function startMailSink(options: MailSinkOptions = {}): Promise<MailSink> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const store = createMessageStore({ keepBodies: options.keepBodies });
  const idempotency = createIdempotencyStore(now);
  const faults = createFaultBook(now);
  const limiter = createRateLimiter(now);
  const shutdown = new AbortController();

  // A kept key whose email was cleared would replay an id that GET /emails/:id no longer knows.
  const clear = () => {
    store.clear();
    idempotency.clear();
  };
  const sendContext: SendContext = { store, idempotency, faults, now, signal: shutdown.signal };
  const sinkContext: SinkRouteContext = { store, faults, requests: limiter.tally, clear };

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = requestUrl(req.url);
    if (!url) return notFound(res);
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const method = req.method ?? 'GET';

    if (path === '/health')
      return method === 'GET' || method === 'HEAD' ? sendText(res, 200, 'text/plain; charset=utf-8', 'ok') : methodNotAllowed(res);
    if (path === '/') return method === 'GET' ? handleInbox(sinkContext, res, url.searchParams) : methodNotAllowed(res);
    if (path === '/sink/messages') return handleMessages(sinkContext, req, res, url.searchParams);
    if (path === '/sink/messages/count') return handleMessageCount(sinkContext, req, res, url.searchParams);
    if (path === '/sink/faults') return handleFaults(sinkContext, req, res, url.searchParams);
    if (path === '/sink/requests') return handleRequestTally(sinkContext, req, res, url.searchParams);

    const emailId = EMAIL_PATH.exec(path)?.[1];
    const isSend = path === '/emails' || path === '/emails/batch';
    if (!isSend && emailId === undefined) return notFound(res);
    if (isSend ? method !== 'POST' : method !== 'GET') return methodNotAllowed(res);

    const call = admitApiCall(req, res, limiter, faults);
    if (!call) return;
    if (isSend) return handleSend(sendContext, req, res, call, path === '/emails' ? 'single' : 'batch');

    await faults.delay(call.apiKey, shutdown.signal);
    const id = decodeId(emailId!);
    const message = id === null ? undefined : store.get(call.apiKey, id);
    if (!message) return sendError(res, 404, 'not_found', 'Email not found', call.rateHeaders);
    sendJson(res, 200, toResendEmail(message), call.rateHeaders);
  }

  const server = await startLoopbackServer({
    name: 'mail-sink',
    host,
    port: options.port,
    shutdown,
    route,
    onFailure: (res) => sendError(res, 500, 'internal_server_error', 'The mail sink failed to handle this request.'),
  });

  return {
    url: server.url,
    port: server.port,
    messages: (filter) => store.list(filter),
    clear,
    setFaults: (apiKey, value) => faults.set(apiKey, value),
    close: server.close,
  };
}
