import { json, type Answer, type PlatformAnswers, type PlatformRequest } from './exchange';
import type { PlatformLimits, WindowState } from './rate-limits';

/**
 * Discord's Execute Webhook (`POST /api/webhooks/{id}/{token}`, `?wait=true` to get the message
 * back), answered as Discord does (sources in README.md beside this file): 204, or 200 with the
 * message object when waited for; every answer carries the webhook bucket's X-RateLimit-* headers;
 * over the bucket a 429 with `retry_after` (seconds, with a fraction) in the body and `Retry-After`
 * (whole seconds) in the headers; a deleted webhook is 404 Unknown Webhook (code 10015).
 */
export const DISCORD_PATH = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([^/]+)$/;

/**
 * Discord's bucket hash leaves out the webhook ("non-inclusive of top-level resources"), and every
 * webhook reports the same one (https://github.com/discord/discord-api-docs/issues/6753): one made-up hash for all of them.
 */
export const DISCORD_WEBHOOK_BUCKET = '3d9c3b8a0e5e4f2b9f6a1c7d2e8b4a60';

/** Discord's epoch, for snowflake ids that sort by time as real ones do. */
const DISCORD_EPOCH = 1_420_070_400_000n;

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);

function rateHeaders(state: WindowState, at: number): Record<string, string> {
  return {
    'x-ratelimit-bucket': DISCORD_WEBHOOK_BUCKET,
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': seconds(state.resetAt),
    'x-ratelimit-reset-after': seconds(state.resetAt - at),
  };
}

function rateLimited(state: WindowState, at: number, retryAfterSeconds: number): Answer {
  const retryAfter = Number(retryAfterSeconds.toFixed(3));
  return json(
    429,
    { message: 'You are being rate limited.', retry_after: retryAfter, global: false },
    {
      ...rateHeaders({ ...state, remaining: 0 }, at),
      'retry-after': String(Math.max(1, Math.ceil(retryAfter))),
      'x-ratelimit-scope': 'user',
    },
  );
}

/** Discord's own refusals of a body: invalid JSON, nothing to post, content past 2000 characters. */
function judgePayload(body: unknown): { status: number; body: unknown } | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { status: 400, body: { code: 50109, message: 'The request body contains invalid JSON.' } };
  }
  const message = body as Record<string, unknown>;
  const content = typeof message.content === 'string' ? message.content : '';
  if (content.length > 2000) {
    return {
      status: 400,
      body: {
        message: 'Invalid Form Body',
        code: 50035,
        errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
      },
    };
  }
  const embeds = Array.isArray(message.embeds) ? message.embeds : [];
  if (content.trim() === '' && embeds.length === 0) return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
  return null;
}

/** The message object Discord returns for `?wait=true`, with the fields a sender may read. */
function postedMessage(request: PlatformRequest, id: string) {
  const message = request.body as Record<string, unknown>;
  return {
    id,
    type: 0,
    content: typeof message.content === 'string' ? message.content : '',
    channel_id: String(BigInt(request.destination) + 1n),
    author: {
      id: request.destination,
      username: typeof message.username === 'string' ? message.username : 'Scout',
      avatar: null,
      discriminator: '0000',
      public_flags: 0,
      flags: 0,
      bot: true,
      global_name: null,
    },
    attachments: [],
    embeds: Array.isArray(message.embeds) ? message.embeds : [],
    mentions: [],
    mention_roles: [],
    pinned: false,
    mention_everyone: false,
    tts: false,
    timestamp: new Date(request.at).toISOString().replace('Z', '000+00:00'),
    edited_timestamp: null,
    flags: 0,
    components: [],
    webhook_id: request.destination,
  };
}

export function discordAnswers(options: { limits: PlatformLimits; strict: boolean }): PlatformAnswers {
  let sequence = 0n;
  const snowflake = (at: number) => String(((BigInt(at) - DISCORD_EPOCH) << 22n) + (sequence++ & 0xfffn));
  const bucket = (request: PlatformRequest) => options.limits.discord.peek(request.destination, request.at);
  return {
    rateLimited: (request, retryAfterSeconds) => rateLimited(bucket(request), request.at, retryAfterSeconds),
    serverError: (request, status) =>
      json(
        status,
        {
          message: `${status}: ${status === 500 ? 'Internal Server Error' : status === 502 ? 'Bad Gateway' : 'Service Unavailable'}`,
          code: 0,
        },
        rateHeaders(bucket(request), request.at),
      ),
    gone: () => json(404, { message: 'Unknown Webhook', code: 10015 }),
    judge(request) {
      const before = bucket(request);
      if (options.strict && !before.allowed) {
        return { answer: rateLimited(before, request.at, (before.resetAt - request.at) / 1000), accepted: false };
      }
      // Discord counts a refused body against the bucket like a posted one.
      const state = options.limits.discord.count(request.destination, request.at);
      const headers = rateHeaders(state, request.at);
      const refusal = judgePayload(request.body);
      if (refusal) return { answer: json(refusal.status, refusal.body, headers), accepted: false };
      const wait = ['true', '1', 'True'].includes(request.query.get('wait') ?? '');
      if (!wait) return { answer: { status: 204, contentType: 'text/plain', body: '', headers }, accepted: true };
      return { answer: json(200, postedMessage(request, snowflake(request.at)), headers), accepted: true };
    },
  };
}
