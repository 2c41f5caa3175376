import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, sendText, startLoopbackServer } from '../mail-sink/http-io';
import { CONTROL_PREFIX, handleControl } from './control-routes';
import { DISCORD_PATH, discordAnswers } from './discord';
import { createReceivedLog, readPlatformRequest, serve, type PlatformAnswers } from './exchange';
import { createFaultBook } from './fault-book';
import { HOOK_PATH, hookAnswers } from './hooks';
import { createPlatformLimits } from './rate-limits';
import { SLACK_PATH, slackAnswers } from './slack';
import { BOT_API_PATH, handleBotApi } from './telegram-bot-api';
import { createTelegramState, DEFAULT_TELEGRAM_BOT } from './telegram-state';
import { deliverUpdate } from './telegram-updates';
import type { ChannelStandIn, ChannelStandInOptions, StandInPlatform } from './types';

export type * from './types';
export { DEFAULT_TELEGRAM_BOT } from './telegram-state';
export { DISCORD_WEBHOOK_BUCKET } from './discord';
export { DISCORD_BUCKET, SLACK_BURST, TELEGRAM_PER_BOT, TELEGRAM_PER_CHAT } from './rate-limits';

/** Concatenated, not resolved: `new URL('//x', base)` reads "//x" as a host. */
function requestUrl(raw = '/'): URL | null {
  try {
    return new URL(`http://stand-in.invalid${raw.startsWith('/') ? raw : `/${raw}`}`);
  } catch {
    return null;
  }
}

/** A malformed %-escape in a path is a destination that cannot exist, not a server error. */
function decode(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/**
 * One loopback server standing in for Slack's incoming webhooks, Discord's webhooks, Telegram's
 * Bot API and subscribers' own webhook receivers, with faults injected per destination and each
 * platform's rate enforced on request (docs/channels.md "Local stand-ins"). All state is this one
 * stand-in's: tests start one each on port 0.
 */
export async function startChannelStandIn(options: ChannelStandInOptions = {}): Promise<ChannelStandIn> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const strict = options.strictLimits ?? false;
  const faults = createFaultBook();
  const log = createReceivedLog();
  const limits = createPlatformLimits();
  const state = createTelegramState(options.telegramBots ?? [DEFAULT_TELEGRAM_BOT]);
  const shutdown = new AbortController();
  const answers: Record<Exclude<StandInPlatform, 'telegram'>, PlatformAnswers> = {
    slack: slackAnswers({ limits, strict }),
    discord: discordAnswers({ limits, strict }),
    webhook: hookAnswers,
  };

  async function platformRequest(req: IncomingMessage, res: ServerResponse, url: URL, path: string) {
    const slack = SLACK_PATH.exec(path)?.[1];
    const discord = DISCORD_PATH.exec(path)?.[1];
    const hook = HOOK_PATH.exec(path)?.[1];
    const platform: StandInPlatform | null = slack ? 'slack' : discord ? 'discord' : hook ? 'webhook' : null;
    const destination = decode(slack ?? discord ?? hook ?? '');
    if (!platform || destination === null) return sendText(res, 404, 'text/plain; charset=utf-8', 'Not Found');
    if (req.method !== 'POST') return sendText(res, 405, 'text/plain; charset=utf-8', 'Method Not Allowed', { allow: 'POST' });
    const request = await readPlatformRequest(req, res, { platform, destination, path, query: url.searchParams, at: now() });
    if (request) serve({ faults, log }, res, request, answers[platform]);
  }

  const handle: Omit<ChannelStandIn, 'url' | 'port' | 'close' | 'slackUrl' | 'discordUrl' | 'hookUrl'> = {
    received: (filter) => log.list(filter),
    inject: (fault) => faults.inject(fault),
    clearFaults: (destination) => void faults.clear(destination),
    faults: () => faults.list(),
    reset() {
      log.clear();
      faults.clear();
      limits.clear();
      state.clear();
    },
    telegramMessage: (input) =>
      deliverUpdate(state, input, { at: now(), timeoutMs: options.deliveryTimeoutMs ?? 10_000, signal: shutdown.signal }),
    telegramWebhook: (botToken) => state.webhook(botToken ?? state.bots[0]?.token ?? ''),
  };

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = requestUrl(req.url);
    if (!url) return sendText(res, 404, 'text/plain; charset=utf-8', 'Not Found');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    if (path === '/health') return sendText(res, 200, 'text/plain; charset=utf-8', 'ok');
    if (path.startsWith(CONTROL_PREFIX)) return handleControl(handle, req, res, path, url.searchParams);
    const bot = BOT_API_PATH.exec(path);
    if (bot) {
      const token = decode(bot[1]) ?? '';
      return handleBotApi({ state, faults, log, limits, strict }, req, res, {
        path,
        query: url.searchParams,
        at: now(),
        token,
        method: bot[2],
      });
    }
    return platformRequest(req, res, url, path);
  }

  const server = await startLoopbackServer({
    name: 'channel-stand-in',
    host,
    port: options.port,
    shutdown,
    route,
    onFailure: (res) => sendJson(res, 500, { error: 'the channel stand-in failed to handle this request' }),
  });

  return {
    url: server.url,
    port: server.port,
    slackUrl: (path = 'T00000000/B00000000/standinsecret') => `${server.url}/services/${path}`,
    discordUrl: (id = '1000000000000000001', token = 'stand-in-token') => `${server.url}/api/webhooks/${id}/${token}`,
    hookUrl: (name) => `${server.url}/hooks/${encodeURIComponent(name)}`,
    ...handle,
    close: server.close,
  };
}
