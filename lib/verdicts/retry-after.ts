/**
 * How long a 429 asks the caller to wait, in ms: `retry-after-ms` (OpenAI's own header) first,
 * then `Retry-After` as seconds (a decimal is accepted) or as an HTTP date. Undefined when absent
 * or unreadable; a date already past is 0. Whether to wait that long is the caller's call, inside
 * its run budget.
 */
export function parseRetryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // An HTTP date names its day and month; anything else ("-5", "soon") is unreadable.
  const at = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
