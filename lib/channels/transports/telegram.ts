import { retryAfterMs } from '../../http/retry-after';
import type { ChannelSendOutcome } from '../channel-outcome';
import { jsonBody, redirectOutcome, safeText, secondsToMs, type ChannelAnswer } from './channel-http';

/**
 * The Telegram Bot API's sendMessage (docs/channels.md, "What each platform's answer means").
 * Every answer is JSON: `{"ok": true, "result": {message_id, …}}` or `{"ok": false, "error_code",
 * "description", "parameters"?}`, with the HTTP status equal to error_code. A 429 carries
 * `parameters.retry_after` in seconds. The bot token is part of the URL, so no error here is built
 * from the URL, and any description is scrubbed of the token before it is kept.
 */
export const telegramSendMessageUrl = (apiBaseUrl: string, botToken: string): URL =>
  new URL(`${apiBaseUrl.replace(/\/+$/, '')}/bot${botToken}/sendMessage`);

/**
 * 400s that mean the chat is no longer there for this bot: it does not exist, it was deleted, or
 * a group chat became a supergroup chat (a new chat id, which the subscriber binds again with /start).
 */
const CHAT_GONE = /chat not found|chat was deleted|group chat was upgraded|PEER_ID_INVALID|user not found/i;

function telegramError(answer: ChannelAnswer, botToken: string): string {
  const description = jsonBody(answer)?.description;
  const text = typeof description === 'string' ? safeText(description.split(botToken).join('…'), 100) : '';
  return `telegram ${answer.status}${text ? ` ${text}` : ''}`;
}

export function classifyTelegramAnswer(answer: ChannelAnswer, botToken: string): ChannelSendOutcome {
  const { status } = answer;
  const body = jsonBody(answer);
  if (status >= 200 && status < 300) {
    if (body?.ok !== true) return { status: 'unknown', error: `telegram ${status} unreadable answer` };
    const result = body.result as { message_id?: unknown } | undefined;
    return { status: 'sent', detail: typeof result?.message_id === 'number' ? String(result.message_id) : null };
  }
  if (status >= 300 && status < 400) return redirectOutcome('telegram', status);
  const error = telegramError(answer, botToken);
  if (status === 429) {
    const parameters = body?.parameters as { retry_after?: unknown } | undefined;
    // Older answers said it only in the description ("Too Many Requests: retry after 3").
    const described = /retry after (\d+)/i.exec(typeof body?.description === 'string' ? body.description : '')?.[1];
    const wait = secondsToMs(parameters?.retry_after) ?? retryAfterMs(answer.headers['retry-after']) ?? secondsToMs(described);
    return { status: 'refused', retryAfterMs: wait, error };
  }
  // 403: blocked by the user, user deactivated, kicked from the group chat: this chat takes nothing from the bot.
  if (status === 403) return { status: 'gone', error };
  if (status === 400 && CHAT_GONE.test(error)) return { status: 'gone', error };
  // 401 and 404 are Scout's bot token (revoked, mistyped): no chat's fault, and not this message's.
  if (status === 401 || status === 404) return { status: 'refused', retryAfterMs: null, error };
  if (status >= 500) return { status: 'unknown', error };
  return { status: 'rejected', error };
}
