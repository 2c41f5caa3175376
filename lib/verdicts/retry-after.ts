import { retryAfterMs } from '../http/retry-after';

/**
 * How long a 429 from the model server asks the caller to wait, in ms: `retry-after-ms` (OpenAI's
 * own header) first, then `Retry-After` (retryAfterMs). Undefined when absent or unreadable; a date
 * already past is 0. Whether to wait that long is the caller's call, inside its run budget.
 */
export function parseRetryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  return retryAfterMs(headers?.get('retry-after'), now) ?? undefined;
}
