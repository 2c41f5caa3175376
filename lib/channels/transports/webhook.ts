import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { retryAfterMs } from '../../http/retry-after';
import type { ChannelSendOutcome } from '../channel-outcome';
import { redirectOutcome, type ChannelAnswer } from './channel-http';

/**
 * A subscriber's own receiver, signed by Standard Webhooks (docs/channels.md): `webhook-id` is the
 * message's id, the same on every attempt so a receiver drops a repeat; `webhook-timestamp` is
 * this attempt's time in seconds; `webhook-signature` is `v1,` + base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}` under the subscriber's secret, made by the standardwebhooks package.
 */

/** Secret bytes: Standard Webhooks asks for 24 to 64; 32 is HMAC-SHA256's own key size. */
const SECRET_BYTES = 32;

/** A new signing secret, `whsec_` + base64, shown to the subscriber once. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;

/** The request's headers for one attempt, signed at `now`. */
export function webhookHeaders(secret: string, messageId: string, body: string, now: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Scout-Webhooks/1',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, now, body),
  };
}

/**
 * 2xx: taken. 410: the receiver says it is gone for good. 429, or 503 with Retry-After: not
 * processed, try later. Other 4xx: this request will not be taken. 5xx: it may have been processed
 * (a receiver can fail after acting), which a repeated webhook-id makes safe to retry.
 */
export function classifyWebhookAnswer(answer: ChannelAnswer): ChannelSendOutcome {
  const { status } = answer;
  const error = `webhook ${status}`;
  if (status >= 200 && status < 300) return { status: 'sent', detail: null };
  if (status >= 300 && status < 400) return redirectOutcome('webhook', status);
  if (status === 410) return { status: 'gone', error };
  const wait = retryAfterMs(answer.headers['retry-after']);
  if (status === 429) return { status: 'refused', retryAfterMs: wait, error };
  if (status === 503 && wait !== null) return { status: 'refused', retryAfterMs: wait, error };
  if (status >= 500) return { status: 'unknown', error };
  return { status: 'rejected', error };
}
