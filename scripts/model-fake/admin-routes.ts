import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotAllowed, readJsonRequest, sendError, sendJson } from '../mail-sink/http-io';
import { parseFaults, type FaultBook } from './faults';
import type { RequestLog } from './request-log';

export type AdminContext = { faults: FaultBook; log: RequestLog };

/**
 * The admin routes take the API key as a parameter, never from Authorization, and reading one
 * needs it: a test sees only what its own key did. DELETE without a key clears every key.
 */
function keyParam(res: ServerResponse, query: URLSearchParams): string | null {
  const apiKey = query.get('apiKey');
  if (!apiKey) sendError(res, 422, 'validation_error', 'The `apiKey` query parameter is required.');
  return apiKey || null;
}

/** GET, POST {apiKey, faults: [...]} (replaces the key's faults) and DELETE ?apiKey. */
export async function handleFaults(ctx: AdminContext, req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
  if (req.method === 'GET') {
    const apiKey = keyParam(res, query);
    if (apiKey) sendJson(res, 200, { apiKey, faults: ctx.faults.get(apiKey) });
    return;
  }
  if (req.method === 'DELETE') {
    const apiKey = query.get('apiKey') || undefined;
    ctx.faults.clear(apiKey);
    return sendJson(res, 200, { cleared: apiKey ?? 'all' });
  }
  if (req.method !== 'POST') return methodNotAllowed(res);

  const json = await readJsonRequest(req, res);
  if (!json) return;
  const { apiKey, faults } = (json.value ?? {}) as { apiKey?: unknown; faults?: unknown };
  if (typeof apiKey !== 'string' || apiKey.length === 0)
    return sendError(res, 422, 'validation_error', 'Expected {apiKey, faults: [...]}.');
  const checked = parseFaults(faults);
  if (!checked.ok) return sendError(res, 422, 'validation_error', checked.message);
  ctx.faults.set(apiKey, checked.value);
  sendJson(res, 200, { apiKey, faults: ctx.faults.get(apiKey) });
}

/** GET ?apiKey lists the key's recorded chat-completions requests, oldest first; DELETE clears them. */
export function handleRequests(ctx: AdminContext, req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
  if (req.method === 'GET') {
    const apiKey = keyParam(res, query);
    if (apiKey) sendJson(res, 200, { apiKey, requests: ctx.log.list(apiKey) });
    return;
  }
  if (req.method === 'DELETE') {
    const apiKey = query.get('apiKey') || undefined;
    ctx.log.clear(apiKey);
    return sendJson(res, 200, { cleared: apiKey ?? 'all' });
  }
  methodNotAllowed(res);
}

/** GET ?apiKey: how many chat-completions requests the key made, without their bodies (a bench's thousands stay in the fake). */
export function handleRequestCount(ctx: AdminContext, req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
  if (req.method !== 'GET') return methodNotAllowed(res);
  const apiKey = keyParam(res, query);
  if (apiKey) sendJson(res, 200, { apiKey, count: ctx.log.count(apiKey) });
}
