import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendText } from '../mail-sink/http-io';
import { handleFaults, handleRequests, type AdminContext } from './admin-routes';
import { handleCompletions, handleModels, type CompletionsContext } from './completions-route';
import { createFaultBook } from './faults';
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
  const shutdown = new AbortController();
  const admin: AdminContext = { faults: createFaultBook(), log: createRequestLog() };
  const completions: CompletionsContext = { ...admin, models, now: options.now ?? Date.now, signal: shutdown.signal };

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = requestUrl(req.url);
    if (!url) return notFound(res);
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const method = req.method ?? 'GET';

    if (path === '/health')
      return method === 'GET' || method === 'HEAD' ? sendText(res, 200, 'text/plain; charset=utf-8', 'ok') : methodNotAllowed(res);
    if (path === '/__faults') return handleFaults(admin, req, res, url.searchParams);
    if (path === '/__requests') return handleRequests(admin, req, res, url.searchParams);
    if (path === '/v1/models') return method === 'GET' ? handleModels(models, req, res) : methodNotAllowed(res);
    if (path === '/v1/chat/completions') return method === 'POST' ? handleCompletions(completions, req, res) : methodNotAllowed(res);
    notFound(res);
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      // Shutdown and clients hanging up are not the fake's failures: nothing to report, nobody to tell.
      if (shutdown.signal.aborted || req.socket.destroyed) return res.destroy();
      // Never crash on bad input: whatever slipped through becomes a 500 for that request only.
      console.error('[model-fake] request failed:', error);
      sendOpenAiError(res, 500, 'server_error', 'The model fake failed to handle this request.');
    });
  });
  // Malformed HTTP never reaches route(); answer it rather than letting the socket hang.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;

  return {
    url,
    baseUrl: `${url}/v1`,
    port,
    models: [...models],
    setFaults: (apiKey, faults) => admin.faults.set(apiKey, faults),
    requests: (apiKey) => admin.log.list(apiKey),
    clearRequests: (apiKey) => admin.log.clear(apiKey),
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        shutdown.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets (fetch pools them) would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
