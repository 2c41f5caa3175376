import { retryAfterMs } from '../../http/retry-after';
import type { ChannelRateLimit, ChannelSendOutcome } from '../channel-outcome';
import { jsonBody, redirectOutcome, safeText, secondsToMs, type ChannelAnswer } from './channel-http';

/**
 * Discord's Execute Webhook (docs/channels.md, "What each platform's answer means"), posted with
 * `?wait=true` so a 200 carries the created message (its id is kept as the send's detail); Discord
 * may still answer 204. Errors are JSON `{"message", "code"}`; a 429 is `{"message", "retry_after"
 * (seconds, a float), "global"}`. Discord's rate-limit guide says a webhook that answered 404 must
 * not be used again; 401 is code 50027, Invalid Webhook Token: the webhook was reset or deleted.
 */
export const discordExecuteUrl = (destination: string): URL => {
  const url = new URL(destination);
  url.searchParams.set('wait', 'true');
  return url;
};

/** X-RateLimit-Remaining and X-RateLimit-Reset-After (seconds, decimals allowed) when both are readable. */
export function discordRateLimit(answer: ChannelAnswer): ChannelRateLimit | undefined {
  const remaining = Number(answer.headers['x-ratelimit-remaining']);
  const resetAfterMs = secondsToMs(answer.headers['x-ratelimit-reset-after']);
  if (answer.headers['x-ratelimit-remaining'] === undefined || !Number.isInteger(remaining) || remaining < 0) return undefined;
  return resetAfterMs === null ? undefined : { remaining, resetAfterMs };
}

/** `discord 404 10015 Unknown Webhook`: status, Discord's code and message when the body has them. */
function discordError(answer: ChannelAnswer): string {
  const body = jsonBody(answer);
  const code = typeof body?.code === 'number' && body.code > 0 ? ` ${body.code}` : '';
  const message = typeof body?.message === 'string' ? ` ${safeText(body.message, 80)}` : '';
  return `discord ${answer.status}${code}${message}`;
}

const messageId = (answer: ChannelAnswer): string | null => {
  const id = jsonBody(answer)?.id;
  return typeof id === 'string' && /^\d{1,25}$/.test(id) ? id : null;
};

export function classifyDiscordAnswer(answer: ChannelAnswer): ChannelSendOutcome {
  const { status } = answer;
  const rateLimit = discordRateLimit(answer);
  const withLimit = rateLimit ? { rateLimit } : {};
  if (status >= 200 && status < 300) return { status: 'sent', detail: messageId(answer), ...withLimit };
  if (status >= 300 && status < 400) return redirectOutcome('discord', status);
  const error = discordError(answer);
  if (status === 429) {
    // The body's float is finer than the header's whole seconds; a Cloudflare ban may carry neither.
    const wait = secondsToMs(jsonBody(answer)?.retry_after) ?? retryAfterMs(answer.headers['retry-after']);
    return { status: 'refused', retryAfterMs: wait, error, ...withLimit };
  }
  if (status === 401 || status === 404) return { status: 'gone', error };
  if (status >= 500) return { status: 'unknown', error };
  return { status: 'rejected', error };
}
