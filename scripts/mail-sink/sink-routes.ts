import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultBook } from './faults';
import { parseFaults } from './faults';
import { methodNotAllowed, readJsonRequest, sendError, sendJson, sendText } from './http-io';
import { INBOX_PAGE_CSP, renderInboxPage } from './inbox-page';
import type { MessageStore } from './message-store';
import type { RequestTally } from './rate-limit';
import type { MessageFilter } from './types';

export type SinkRouteContext = { store: MessageStore; faults: FaultBook; requests(apiKey: string): RequestTally; clear(): void };

/** Empty query values mean "no filter", so `?to=&apiKey=k` works as a form would send it. */
function filterFrom(query: URLSearchParams): MessageFilter {
  const filter: MessageFilter = {};
  const to = query.get('to');
  const apiKey = query.get('apiKey');
  if (to) filter.to = to;
  if (apiKey) filter.apiKey = apiKey;
  return filter;
}

export function handleInbox(ctx: SinkRouteContext, res: ServerResponse, query: URLSearchParams) {
  const filter = filterFrom(query);
  sendText(res, 200, 'text/html; charset=utf-8', renderInboxPage(ctx.store.list(filter), filter), {
    'content-security-policy': INBOX_PAGE_CSP,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  });
}

export function handleMessages(ctx: SinkRouteContext, req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
  if (req.method === 'GET') return sendJson(res, 200, { messages: ctx.store.list(filterFrom(query)) });
  if (req.method === 'DELETE') {
    ctx.clear();
    return sendJson(res, 200, { cleared: true });
  }
  methodNotAllowed(res);
}

/** How many messages match the filter, without shipping them: a bench with 10,000 emails asks only this. */
export function handleMessageCount(ctx: SinkRouteContext, req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
  if (req.method !== 'GET') return methodNotAllowed(res);
  return sendJson(res, 200, { count: ctx.store.count(filterFrom(query)) });
}

/**
 * The API requests a key made, as the provider counts them: admitted, and refused with a 429 by
 * the rate limit. The bench reads it to tell how much of a run's pacing the provider refused.
 */
export function handleRequestTally(ctx: SinkRouteContext, req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
  if (req.method !== 'GET') return methodNotAllowed(res);
  const apiKey = query.get('apiKey');
  if (!apiKey) return sendError(res, 422, 'validation_error', 'The `apiKey` query parameter is required.');
  return sendJson(res, 200, { apiKey, ...ctx.requests(apiKey) });
}

/** Same effect as sink.setFaults, for a sink running in another process (the CLI, a demo). */
export async function handleFaults(ctx: SinkRouteContext, req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
  if (req.method === 'GET') {
    const apiKey = query.get('apiKey');
    if (!apiKey) return sendError(res, 422, 'validation_error', 'The `apiKey` query parameter is required.');
    return sendJson(res, 200, { apiKey, faults: ctx.faults.get(apiKey) });
  }
  if (req.method === 'DELETE') {
    const apiKey = query.get('apiKey') || undefined;
    ctx.faults.clear(apiKey);
    return sendJson(res, 200, { cleared: apiKey ?? 'all' });
  }
  if (req.method !== 'POST') return methodNotAllowed(res);

  const json = await readJsonRequest(req, res);
  if (!json) return;
  const value = json.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return sendError(res, 422, 'validation_error', 'Expected a JSON object {apiKey, ...faults}.');
  }
  const { apiKey, ...rest } = value as Record<string, unknown>;
  if (typeof apiKey !== 'string' || apiKey.length === 0) return sendError(res, 422, 'validation_error', 'Missing `apiKey` field.');
  const faults = parseFaults(rest);
  if (!faults.ok) return sendError(res, 422, 'validation_error', faults.message);
  ctx.faults.set(apiKey, faults.value);
  sendJson(res, 200, { apiKey, faults: ctx.faults.get(apiKey) });
}
