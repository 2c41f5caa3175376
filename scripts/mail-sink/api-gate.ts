import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultBook } from './faults';
import { sendError } from './http-io';
import type { RateLimiter } from './rate-limit';

/** An authenticated API request that passed its key's rate limit. */
export type ApiCall = { apiKey: string; rateHeaders: Record<string, string> };

export function bearerKey(req: IncomingMessage): string | null {
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  const key = match?.[1].trim();
  return key ? key : null;
}

/**
 * Auth first, then the per-key rate limit, as Resend's edge does: a 401 or 429 is decided before
 * the body is even read, so neither consumes an idempotency key or a fault.
 */
export function admitApiCall(req: IncomingMessage, res: ServerResponse, limiter: RateLimiter, faults: FaultBook): ApiCall | null {
  const apiKey = bearerKey(req);
  if (!apiKey) {
    sendError(
      res,
      401,
      'missing_api_key',
      'Missing API key in the authorization header. Include the following header in the request: Authorization: Bearer YOUR_API_KEY',
    );
    return null;
  }
  const limit = faults.ratePerSec(apiKey);
  const verdict = limiter.take(apiKey, limit);
  if (!verdict.allowed) {
    sendError(
      res,
      429,
      'rate_limit_exceeded',
      `Too many requests. You can only make ${limit} requests per second. See rate limit response headers for more information.`,
      verdict.headers,
    );
    return null;
  }
  return { apiKey, rateHeaders: verdict.headers };
}
