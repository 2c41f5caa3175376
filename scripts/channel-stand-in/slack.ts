import { json, text, type Answer, type PlatformAnswers, type PlatformRequest } from './exchange';
import type { PlatformLimits } from './rate-limits';

/**
 * Slack incoming webhooks (`POST /services/{T}/{B}/{secret}`), answered as Slack does. Incoming
 * webhooks answer in bare strings, not JSON (README.md beside this file has the sources):
 *   200 ok                        the message was posted
 *   400 invalid_payload           the body is not a JSON message
 *   400 no_text                   a message with neither text nor blocks nor attachments
 *   404 no_service                the webhook was removed or disabled (the "gone" answer)
 *   410 channel_is_archived       the channel was archived (gone too)
 *   500 rollup_error              "something strange and unusual happened"
 *   429 + Retry-After (seconds)   over the rate, with the JSON body a rate-limited webhook answered
 */
export const SLACK_PATH = /^\/services\/([^/]+\/[^/]+\/[^/]+)$/;

/** What a proxy in front of Slack says when Slack itself is down: not Slack's own words. */
const GATEWAY_ERRORS: Record<number, string> = { 502: '502 Bad Gateway', 503: '503 Service Unavailable' };

const SLACK_GONE: Record<number, string> = { 404: 'no_service', 410: 'channel_is_archived' };

function rateLimited(seconds: number): Answer {
  const whole = Math.max(1, Math.ceil(seconds));
  // Captured from a rate-limited incoming webhook (https://github.com/yassineaboukir/sublert/issues/46).
  return json(429, { retry_after: whole, ok: false, error: 'rate_limited' }, { 'retry-after': String(whole) });
}

/** Slack also takes the message form-encoded, as JSON in a `payload` field. */
function messageOf(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('payload' in body) || typeof body.payload !== 'string') return body;
  try {
    return JSON.parse(body.payload) as unknown;
  } catch {
    return null;
  }
}

function judgePayload(body: unknown): Answer | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return text(400, 'invalid_payload');
  const message = body as Record<string, unknown>;
  if (message.blocks !== undefined && !Array.isArray(message.blocks)) return text(400, 'invalid_payload');
  const hasText = typeof message.text === 'string' && message.text.trim() !== '';
  const hasBlocks = Array.isArray(message.blocks) && message.blocks.length > 0;
  const hasAttachments = Array.isArray(message.attachments) && message.attachments.length > 0;
  return hasText || hasBlocks || hasAttachments ? null : text(400, 'no_text');
}

export function slackAnswers(options: { limits: PlatformLimits; strict: boolean }): PlatformAnswers {
  return {
    rateLimited: (_request, seconds) => rateLimited(seconds),
    serverError: (_request, status) => text(status, status === 500 ? 'rollup_error' : (GATEWAY_ERRORS[status] ?? 'rollup_error')),
    gone: (_request, status) => text(status ?? 404, SLACK_GONE[status ?? 404] ?? 'no_service'),
    judge(request: PlatformRequest) {
      if (options.strict) {
        const verdict = options.limits.slack.take(request.destination, request.at);
        if (!verdict.allowed) return { answer: rateLimited(verdict.retryAfterMs / 1000), accepted: false };
      }
      const refusal = judgePayload(messageOf(request.body));
      if (refusal) return { answer: refusal, accepted: false };
      return { answer: text(200, 'ok'), accepted: true };
    },
  };
}
