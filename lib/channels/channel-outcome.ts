/**
 * What a platform's answer to one send means for the ledger (transports/ classify each answer):
 *   sent      the platform took it.
 *   refused   definitely not taken (429, connection refused, DNS failure): a retry cannot duplicate
 *             it, so even an instant alert may be tried again, after `retryAfterMs` when the
 *             platform said (Discord's `retry_after`, Telegram's `parameters.retry_after`).
 *   unknown   it may have been posted (a timeout after the request went, a 5xx, a dropped
 *             connection): an instant alert on a chat channel ends `failed` (`unknown_outcome`); a
 *             digest, or anything on a webhook (receivers drop a repeated `webhook-id`), is retried.
 *   gone      the destination no longer exists (Slack 404/410 `no_service`, Discord 404 Unknown
 *             Webhook, Telegram 403 blocked, a webhook's 410): the channel is disabled at once.
 *   rejected  the platform refused this request for good (400 invalid payload, 413): dead, not retried.
 */
export type ChannelSendOutcome =
  | { status: 'sent'; detail: string | null; rateLimit?: ChannelRateLimit }
  | { status: 'refused'; retryAfterMs: number | null; error: string; rateLimit?: ChannelRateLimit }
  | { status: 'unknown'; error: string }
  | { status: 'gone'; error: string }
  | { status: 'rejected'; error: string };

/**
 * What a platform's rate-limit headers said of the destination's bucket after this send (Discord's
 * X-RateLimit-Remaining and X-RateLimit-Reset-After): the destination limiter holds the destination
 * for `resetAfterMs` once `remaining` reaches 0, so the next send waits instead of earning a 429.
 */
export type ChannelRateLimit = { remaining: number; resetAfterMs: number };

export type ChannelSendStatus = ChannelSendOutcome['status'];
