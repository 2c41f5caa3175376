/**
 * How long an HTTP answer's `Retry-After` asks the caller to wait, in milliseconds: seconds (a
 * decimal is accepted) or an HTTP date, a date already past being 0. Null when absent or
 * unreadable ("soon", "-5"). One reading for every caller (the mail provider, the model server,
 * the job boards); whether to wait that long, and how long at most, is each caller's own call.
 */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  // An HTTP date names its day and month; anything else is unreadable.
  const at = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
