import { onTestFinished } from 'vitest';
import { DEFAULT_TELEGRAM_BOT, startChannelStandIn, type ChannelStandInOptions } from '../../scripts/channel-stand-in/server';

/** A fresh stand-in per test, closed when the test ends. */
export async function openStandIn(options: ChannelStandInOptions = {}) {
  const standIn = await startChannelStandIn({ port: 0, ...options });
  onTestFinished(() => standIn.close());
  return standIn;
}

export const BOT_TOKEN = DEFAULT_TELEGRAM_BOT.token;

export const postJson = (url: string, body: unknown, init: RequestInit = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...init });

/** The Bot API call Scout makes: `${base}/bot${token}/${method}` with a JSON body. */
export const botApi = (base: string, method: string, body: unknown = {}, token = BOT_TOKEN) =>
  postJson(`${base}/bot${token}/${method}`, body);
