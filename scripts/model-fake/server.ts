import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendText, startLoopbackServer } from '../mail-sink/http-io';
import { handleFaults, handleRequestCount, handleRequests, type AdminContext } from './admin-routes';
import { handleCompletions, handleModels, type CompletionsContext } from './completions-route';
import { createFaultBook, MAX_DELAY_MS } from './faults';
import { methodNotAllowed, notFound, sendOpenAiError } from './openai-errors';
import { createRequestLog } from './request-log';
import type { ModelFake, ModelFakeOptions } from './types';

export type { ModelFake, ModelFakeOptions, ModelFault, RecordedRequest } from './types';

export const DEFAULT_MODELS = ['scout-fake-1'];

/** Concatenated, not resolved: `new URL('//x', base)` reads "//x" as a host, and may throw. */
function requestUrl(raw = '/'): URL | null {
  try {
    return new URL(`http://fake.invalid${raw.startsWith('/') ? raw : `/${raw}`}`);
  } catch {
    return null;
  }
}

/**
 * A deterministic OpenAI-compatible chat-completions server on loopback, for the demo and the tests:
 * point any OpenAI-compatible client at `baseUrl`. All state belongs to this one fake.
 */
export async function startModelFake(options: ModelFakeOptions = {}): Promise<ModelFake> {
  const host = options.host ?? '127.0.0.1';
  const models = options.models ?? DEFAULT_MODELS;
  const delayMs = options.delayMs ?? 0;
  // The same bound as a slow fault's: a typo here would otherwise stall every request of a run.
  if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS)
    throw new TypeError(`model-fake: delayMs must be a whole number of ms from 0 to ${MAX_DELAY_MS}, got ${delayMs}`);
  const shutdown = new AbortController();
  const admin: AdminContext = { faults: createFaultBook(), log: createRequestLog() };
  const completions: CompletionsContext = { ...admin, models, now: options.now ?? Date.now, signal: shutdown.signal, delayMs };

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = requestUrl(req.url);
    if (!url) return notFound(res);
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const method = req.method ?? 'GET';

    if (path === '/health')
      return method === 'GET' || method === 'HEAD' ? sendText(res, 200, 'text/plain; charset=utf-8', 'ok') : methodNotAllowed(res);
    if (path === '/__faults') return handleFaults(admin, req, res, url.searchParams);
    if (path === '/__requests') return handleRequests(admin, req, res, url.searchParams);
    if (path === '/__requests/count') return handleRequestCount(admin, req, res, url.searchParams);
    if (path === '/v1/models') return method === 'GET' ? handleModels(models, req, res) : methodNotAllowed(res);
    if (path === '/v1/chat/completions') return method === 'POST' ? handleCompletions(completions, req, res) : methodNotAllowed(res);
    notFound(res);
  }

  const server = await startLoopbackServer({
    name: 'model-fake',
    host,
    port: options.port,
    shutdown,
    route,
    onFailure: (res) => sendOpenAiError(res, 500, 'server_error', 'The model fake failed to handle this request.'),
  });

  return {
    url: server.url,
    baseUrl: `${server.url}/v1`,
    port: server.port,
    models: [...models],
    delayMs,
    setFaults: (apiKey, faults) => admin.faults.set(apiKey, faults),
    requests: (apiKey) => admin.log.list(apiKey),
    clearRequests: (apiKey) => admin.log.clear(apiKey),
    close: server.close,
  };
}
