import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

export type BodyResult = { ok: true; raw: Buffer } | { ok: false; reason: 'too_large' };

/**
 * Reads the whole body, but stops buffering past the cap. An oversized body is still drained
 * (and discarded) before we answer: replying mid-upload makes fetch report a reset socket
 * instead of the 413, which would look like an ambiguous outcome rather than a refusal.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<BodyResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? { ok: false, reason: 'too_large' } : { ok: true, raw: Buffer.concat(chunks) }));
    req.on('error', reject);
    // A client that hangs up mid-upload may emit neither 'end' nor 'error'; don't wait forever.
    req.on('close', () => {
      if (!req.complete) reject(new Error('request aborted by the client'));
    });
  });
}

/** A client may have gone away during injected latency; writing then must be a no-op, not a crash. */
const writable = (res: ServerResponse) => !res.destroyed && !res.writableEnded && !res.headersSent;

/** A string body is JSON already serialized; anything else is serialized here. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (!writable(res)) return;
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

/** Resend's error envelope; the SDK hands the parsed body straight back as `error`. */
export const errorBody = (statusCode: number, name: string, message: string) => ({ statusCode, name, message });

export function sendError(res: ServerResponse, status: number, name: string, message: string, headers: Record<string, string> = {}) {
  sendJson(res, status, errorBody(status, name, message), headers);
}

export function sendText(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}) {
  if (!writable(res)) return;
  res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export const notFound = (res: ServerResponse) => sendError(res, 404, 'not_found', 'The requested endpoint does not exist.');
export const methodNotAllowed = (res: ServerResponse) =>
  sendError(res, 405, 'method_not_allowed', 'Method is not allowed for the requested path.');

export type JsonResult = { ok: true; value: unknown } | { ok: false };

export function parseJson(raw: Buffer): JsonResult {
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

export type LoopbackServer = { url: string; port: number; close: () => Promise<void> };

/**
 * Starts a local test server (the mail sink, the model fake) on `host:port` (0: any free port)
 * around `route`. A request whose route throws gets `onFailure`'s answer, unless the server is
 * shutting down or the client hung up; malformed HTTP gets a 400 instead of a hanging socket.
 * `close()` aborts `shutdown` (so waits inside routes end) and is idempotent.
 */
export async function startLoopbackServer(input: {
  name: string;
  host: string;
  port?: number;
  shutdown: AbortController;
  route: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>;
  onFailure: (res: ServerResponse) => void;
}): Promise<LoopbackServer> {
  const { shutdown, host } = input;
  const server = createServer((req, res) => {
    input.route(req, res).catch((error: unknown) => {
      // Shutdown and clients hanging up are not the server's failures: nothing to report, nobody to tell.
      if (shutdown.signal.aborted || req.socket.destroyed) return res.destroy();
      // Never crash on bad input: whatever slipped through becomes a 500 for that request only.
      console.error(`[${input.name}] request failed:`, error);
      input.onFailure(res);
    });
  });
  // Malformed HTTP never reaches route(); answer it rather than letting the socket hang.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(input.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
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

/**
 * A control route's JSON body (the fault admin routes of the sink and the fake), or undefined once
 * a 413 (too large) or 400 (not JSON) has been answered.
 */
export async function readJsonRequest(req: IncomingMessage, res: ServerResponse): Promise<{ value: unknown } | undefined> {
  const body = await readBody(req);
  if (!body.ok) return void sendError(res, 413, 'validation_error', 'The request body is too large.');
  const json = parseJson(body.raw);
  if (!json.ok) return void sendError(res, 400, 'validation_error', 'The request body is not valid JSON.');
  return { value: json.value };
}
