import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  json,
  readPlatformRequest,
  serve,
  writeAnswer,
  type Answer,
  type PlatformAnswers,
  type PlatformRequest,
  type ReceivedLog,
} from './exchange';
import type { FaultBook } from './fault-book';
import type { PlatformLimits } from './rate-limits';
import { htmlParseError, htmlToText } from './telegram-html';
import type { TelegramState } from './telegram-state';
import type { TelegramBot } from './types';

/**
 * Telegram's Bot API (`/bot{token}/{method}`) for the methods Scout calls: getMe, setWebhook,
 * deleteWebhook, getWebhookInfo, sendMessage. Every answer is Telegram's envelope: `{ok: true,
 * result}` or `{ok: false, error_code, description, parameters?}` (sources in README.md beside this
 * file). A 429's wait is only in `parameters.retry_after`: the Bot API sends no Retry-After header.
 */
export const BOT_API_PATH = /^\/bot([^/]+)\/([A-Za-z]+)$/;

export type BotApiContext = { state: TelegramState; faults: FaultBook; log: ReceivedLog; limits: PlatformLimits; strict: boolean };

const failure = (status: number, description: string, parameters?: Record<string, unknown>): Answer =>
  json(status, { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) });

const success = (result: unknown, description?: string): Answer => json(200, { ok: true, result, ...(description ? { description } : {}) });

function rateLimited(seconds: number): Answer {
  const whole = Math.max(1, Math.ceil(seconds));
  return failure(429, `Too Many Requests: retry after ${whole}`, { retry_after: whole });
}

/** nginx in front of the Bot API answers a 502 or 503 in HTML, not in Telegram's envelope. */
const nginxPage = (status: number, reason: string): Answer => ({
  status,
  contentType: 'text/html',
  body: `<html>\r\n<head><title>${status} ${reason}</title></head>\r\n<body>\r\n<center><h1>${status} ${reason}</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n`,
});

/** A method's parameters: the query string, then a JSON or form body over it, as the Bot API reads them. */
function paramsOf(request: PlatformRequest): Record<string, unknown> {
  const params: Record<string, unknown> = Object.fromEntries(request.query);
  if (typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body)) Object.assign(params, request.body);
  return params;
}

const asString = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

function sendMessageAnswers(ctx: BotApiContext, bot: TelegramBot): PlatformAnswers {
  return {
    rateLimited: (_request, seconds) => rateLimited(seconds),
    serverError: (_request, status) =>
      status === 500
        ? failure(500, 'Internal Server Error')
        : nginxPage(status, status === 502 ? 'Bad Gateway' : 'Service Temporarily Unavailable'),
    gone: () => failure(403, 'Forbidden: bot was blocked by the user'),
    judge(request) {
      const params = paramsOf(request);
      const chatId = request.destination;
      if (chatId === '') return { answer: failure(400, 'Bad Request: chat_id is empty'), accepted: false };
      if (ctx.strict) {
        const verdict = ctx.limits.telegram(bot.token, chatId, request.at);
        if (!verdict.allowed) return { answer: rateLimited(verdict.retryAfterMs / 1000), accepted: false };
      }
      const text = asString(params.text);
      if (text.trim() === '') return { answer: failure(400, 'Bad Request: message text is empty'), accepted: false };
      const html = asString(params.parse_mode).toUpperCase() === 'HTML';
      const parseError = html ? htmlParseError(text) : null;
      if (parseError) return { answer: failure(400, parseError), accepted: false };
      const shown = html ? htmlToText(text) : text;
      if (shown.length > 4096) return { answer: failure(400, 'Bad Request: message is too long'), accepted: false };
      const profile = ctx.state.profile(bot.token, chatId);
      const message = {
        message_id: ctx.state.nextMessageId(bot.token, chatId),
        from: { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username },
        chat: {
          id: /^-?\d+$/.test(chatId) ? Number(chatId) : chatId,
          first_name: profile.firstName,
          ...(profile.username ? { username: profile.username } : {}),
          type: 'private',
        },
        date: Math.floor(request.at / 1000),
        text: shown,
      };
      return { answer: success(message), accepted: true };
    },
  };
}

/** setWebhook with an empty url removes the webhook, as Telegram's does. */
function setWebhook(ctx: BotApiContext, bot: TelegramBot, params: Record<string, unknown>): Answer {
  const url = asString(params.url);
  if (url === '') {
    ctx.state.setWebhook(bot.token, null);
    return success(true, 'Webhook was deleted');
  }
  if (!URL.canParse(url)) return failure(400, 'Bad Request: bad webhook: Failed to resolve host: Name or service not known');
  const secret = asString(params.secret_token);
  if (secret !== '' && !/^[A-Za-z0-9_-]{1,256}$/.test(secret))
    return failure(400, 'Bad Request: secret token contains unallowed characters');
  ctx.state.setWebhook(bot.token, { url, secretToken: secret === '' ? null : secret });
  return success(true, 'Webhook was set');
}

function botMethod(ctx: BotApiContext, bot: TelegramBot, method: string, request: PlatformRequest): Answer {
  if (method === 'getme') {
    return success({
      id: bot.id,
      is_bot: true,
      first_name: bot.firstName,
      username: bot.username,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    });
  }
  if (method === 'setwebhook') return setWebhook(ctx, bot, paramsOf(request));
  if (method === 'deletewebhook') {
    ctx.state.setWebhook(bot.token, null);
    return success(true, 'Webhook was deleted');
  }
  if (method === 'getwebhookinfo') {
    const webhook = ctx.state.webhook(bot.token);
    return success({
      url: webhook?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: 0,
      ...(webhook ? { max_connections: 40, ip_address: '127.0.0.1' } : {}),
    });
  }
  return failure(404, 'Not Found');
}

/** Routes one Bot API call; only sendMessage carries a message, so only it is recorded and faulted. */
export async function handleBotApi(
  ctx: BotApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  where: { path: string; query: URLSearchParams; at: number; token: string; method: string },
) {
  const bot = ctx.state.bot(where.token);
  const method = where.method.toLowerCase();
  const preliminary = await readPlatformRequest(req, res, {
    platform: 'telegram',
    destination: '',
    path: where.path,
    query: where.query,
    at: where.at,
  });
  if (!preliminary) return;
  if (!bot) return writeAnswer(res, failure(401, 'Unauthorized'));
  if (method !== 'sendmessage') return writeAnswer(res, botMethod(ctx, bot, method, preliminary));
  const request = { ...preliminary, destination: asString(paramsOf(preliminary).chat_id) };
  serve(ctx, res, request, sendMessageAnswers(ctx, bot));
}
