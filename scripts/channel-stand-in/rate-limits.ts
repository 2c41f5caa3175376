/**
 * The platforms' documented rates, which the stand-in enforces with `strictLimits` (and Discord's
 * bucket, whose headers it always reports). Sources, in README.md beside this file:
 *   Slack     "no more than one message per second … We allow bursts over that limit for short
 *             periods" (api.slack.com/docs/rate-limits): a token bucket refilled at 1/s. Slack
 *             gives no burst size; SLACK_BURST is the stand-in's choice.
 *   Discord   webhooks: 5 requests per 2 s per webhook (the bucket its X-RateLimit-* headers
 *             describe; https://github.com/discord/discord-api-docs/issues/6753 and birdie0's webhook guide).
 *   Telegram  "avoid sending more than one message per second" in a chat, "no more than 30
 *             messages per second" in all (core.telegram.org/bots/faq).
 */
export const SLACK_BURST = 3;
export const SLACK_PER_SECOND = 1;
export const DISCORD_BUCKET = { limit: 5, windowMs: 2_000 } as const;
export const TELEGRAM_PER_CHAT = { limit: 1, windowMs: 1_000 } as const;
export const TELEGRAM_PER_BOT = { limit: 30, windowMs: 1_000 } as const;

export type WindowState = { allowed: boolean; limit: number; remaining: number; resetAt: number };

/**
 * A fixed window per key, opened by the first request in it (as Discord's Reset-After counts from
 * it). Refused requests are not counted, so a sender that waits as told gets `limit` per window.
 */
export function createFixedWindows(limit: number, windowMs: number) {
  const windows = new Map<string, { start: number; count: number }>();
  const current = (key: string, at: number) => {
    let window = windows.get(key);
    if (!window || at - window.start >= windowMs || at < window.start) {
      window = { start: at, count: 0 };
      windows.set(key, window);
    }
    return window;
  };
  return {
    /** Would a request now be refused? Counts nothing. */
    peek(key: string, at: number): WindowState {
      const window = current(key, at);
      return { allowed: window.count < limit, limit, remaining: Math.max(0, limit - window.count), resetAt: window.start + windowMs };
    },
    /** Counts a request (even past the limit: a caller that does not refuse still reports an empty bucket). */
    count(key: string, at: number): WindowState {
      const window = current(key, at);
      window.count += 1;
      return { allowed: window.count <= limit, limit, remaining: Math.max(0, limit - window.count), resetAt: window.start + windowMs };
    },
    clear: () => windows.clear(),
  };
}

/** A token bucket per key: `burst` requests at once, then one more every 1/`perSecond` s. */
export function createTokenBuckets(burst: number, perSecond: number) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    /** Takes a token if there is one; otherwise how long until there is. */
    take(key: string, at: number): { allowed: true } | { allowed: false; retryAfterMs: number } {
      const bucket = buckets.get(key) ?? { tokens: burst, at };
      bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, at - bucket.at) / 1000) * perSecond);
      bucket.at = at;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true };
      }
      return { allowed: false, retryAfterMs: Math.ceil(((1 - bucket.tokens) / perSecond) * 1000) };
    },
    clear: () => buckets.clear(),
  };
}

/** Every platform's windows, for one stand-in; reset() forgets them all. */
export function createPlatformLimits() {
  const slack = createTokenBuckets(SLACK_BURST, SLACK_PER_SECOND);
  const discord = createFixedWindows(DISCORD_BUCKET.limit, DISCORD_BUCKET.windowMs);
  const telegramChat = createFixedWindows(TELEGRAM_PER_CHAT.limit, TELEGRAM_PER_CHAT.windowMs);
  const telegramBot = createFixedWindows(TELEGRAM_PER_BOT.limit, TELEGRAM_PER_BOT.windowMs);
  return {
    slack,
    discord,
    /** Both Telegram limits at once: a message refused by either counts against neither. */
    telegram(botToken: string, chatId: string, at: number): { allowed: true } | { allowed: false; retryAfterMs: number } {
      const chatKey = `${botToken}\u0000${chatId}`;
      const chat = telegramChat.peek(chatKey, at);
      const bot = telegramBot.peek(botToken, at);
      if (!chat.allowed || !bot.allowed) {
        const resetAt = Math.max(chat.allowed ? 0 : chat.resetAt, bot.allowed ? 0 : bot.resetAt);
        return { allowed: false, retryAfterMs: resetAt - at };
      }
      telegramChat.count(chatKey, at);
      telegramBot.count(botToken, at);
      return { allowed: true };
    },
    clear() {
      slack.clear();
      discord.clear();
      telegramChat.clear();
      telegramBot.clear();
    },
  };
}

export type PlatformLimits = ReturnType<typeof createPlatformLimits>;
