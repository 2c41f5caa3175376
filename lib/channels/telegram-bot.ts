import { fetch as undiciFetch } from 'undici';
import type { Config } from '../runtime/config';
import { telegramWebhookSecret } from '../runtime/config';

/** The updates Scout's bot needs: messages (/start with its token, /stop, anything else gets help). */
export const TELEGRAM_ALLOWED_UPDATES = ['message'] as const;

export type TelegramConnectResult = { ok: true; url: string; description: string } | { ok: false; error: string };

/**
 * Registers Scout's webhook with Telegram (setWebhook): APP_URL/api/telegram, with the derived
 * secret Telegram then sends back on every update, and only the updates the bot reads. Run once per
 * deployment, and again after a new bot token or LINK_SECRET. The token is in the request's path,
 * so no error here ever repeats the URL.
 */
export async function connectTelegramWebhook(
  config: Pick<Config, 'APP_URL' | 'LINK_SECRET' | 'TELEGRAM_BOT_TOKEN' | 'TELEGRAM_API_BASE_URL'>,
  fetch: typeof undiciFetch = undiciFetch,
): Promise<TelegramConnectResult> {
  if (!config.TELEGRAM_BOT_TOKEN) return { ok: false, error: 'TELEGRAM_BOT_TOKEN is not set' };
  const url = new URL('/api/telegram', config.APP_URL).toString();
  const endpoint = `${config.TELEGRAM_API_BASE_URL.replace(/\/$/, '')}/bot${config.TELEGRAM_BOT_TOKEN}/setWebhook`;
  try {
    const answer = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url, secret_token: telegramWebhookSecret(config), allowed_updates: TELEGRAM_ALLOWED_UPDATES }),
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await answer.json().catch(() => null)) as { ok?: boolean; description?: string } | null;
    if (answer.ok && body?.ok) return { ok: true, url, description: body.description ?? 'Webhook was set' };
    return { ok: false, error: `Telegram answered ${answer.status}${body?.description ? `: ${body.description}` : ''}` };
  } catch (error) {
    return { ok: false, error: `Telegram could not be reached (${error instanceof Error ? error.name : 'error'})` };
  }
}
