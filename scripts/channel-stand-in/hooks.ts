import { text, type PlatformAnswers } from './exchange';

/**
 * A subscriber's own webhook receiver (`POST /hooks/{name}`): takes anything with 200, keeping the
 * headers (webhook-id, webhook-timestamp, webhook-signature) and the exact body, so a test can
 * check the Standard Webhooks signature over what arrived. Refusals are plain HTTP: a 429 with
 * Retry-After, a 5xx, and 410 Gone (the answer that disables a webhook channel).
 */
export const HOOK_PATH = /^\/hooks\/([^/]+)$/;

export const hookAnswers: PlatformAnswers = {
  rateLimited: (_request, seconds) => text(429, 'Too Many Requests', { 'retry-after': String(Math.max(1, Math.ceil(seconds))) }),
  serverError: (_request, status) =>
    text(status, status === 500 ? 'Internal Server Error' : status === 502 ? 'Bad Gateway' : 'Service Unavailable'),
  gone: (_request, status) => text(status ?? 410, status === 404 ? 'Not Found' : 'Gone'),
  judge: () => ({ answer: text(200, 'ok'), accepted: true }),
};
