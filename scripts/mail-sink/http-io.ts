import type { IncomingMessage, ServerResponse } from 'node:http';

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

export function sendJson(res: ServerResponse, status: number, body: string | unknown, headers: Record<string, string> = {}) {
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
