import type { ChannelKind } from '../channels/channel';

export type ChannelUrlCheck = { ok: true; url: string; label: string } | { ok: false; error: string };

/** Longer than any Slack, Discord or sensible webhook URL: the channel is stored on the subscriber's document. */
export const MAX_CHANNEL_URL_LENGTH = 500;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The URL a subscriber typed for a Slack, Discord or webhook channel, checked before anything is
 * sent to it: Slack and Discord only on their own hosts exactly (a look-alike host could be
 * anyone's), a webhook only over https to a named host. The address guard still checks where a
 * webhook's host resolves at connect time (lib/http/address-guard.ts); this refuses what no send
 * should even try. `allowLoopback` (CHANNEL_ALLOW_LOOPBACK, refused in production) lets all three
 * be http on loopback, for the local stand-ins and tests. The label is what a page may show of it:
 * never the secret part of a Slack or Discord URL.
 */
export function validateChannelUrl(kind: ChannelKind, raw: string, options: { allowLoopback: boolean }): ChannelUrlCheck {
  const text = raw.trim();
  if (kind === 'telegram') return { ok: false, error: 'Telegram is connected through Scout’s bot, not a URL.' };
  if (text === '') return { ok: false, error: 'Enter the URL.' };
  if (text.length > MAX_CHANNEL_URL_LENGTH) return { ok: false, error: `Enter a URL of at most ${MAX_CHANNEL_URL_LENGTH} characters.` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, error: 'Enter the whole URL, starting with https://' };
  }
  if (url.username || url.password) return { ok: false, error: 'Enter a URL without a user name or password in it.' };
  const loopback = options.allowLoopback && (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
  if (loopback) return { ok: true, url: url.href, label: labelOf(kind, url) };
  if (url.protocol !== 'https:') return { ok: false, error: 'Enter an https:// URL.' };
  if (url.port !== '') return { ok: false, error: 'Enter a URL without a port.' };
  if (kind === 'slack') {
    if (url.hostname !== 'hooks.slack.com' || !/^\/services\/[A-Za-z0-9/_-]+$/.test(url.pathname))
      return { ok: false, error: 'Enter the Slack incoming webhook URL: it starts with https://hooks.slack.com/services/' };
  } else if (kind === 'discord') {
    if (url.hostname !== 'discord.com' || !/^\/api\/webhooks\/\d+\/[A-Za-z0-9_-]+$/.test(url.pathname))
      return { ok: false, error: 'Enter the Discord webhook URL: it starts with https://discord.com/api/webhooks/' };
  } else if (!/^[a-z0-9.-]+$/.test(url.hostname) || !url.hostname.includes('.') || /^[\d.]+$/.test(url.hostname)) {
    return { ok: false, error: 'Enter a URL with a host name (not an IP address).' };
  }
  return { ok: true, url: url.href, label: labelOf(kind, url) };
}

/** Slack and Discord: the host and where the path's secret starts (`hooks.slack.com/services/T0…`); a webhook: host and path. */
function labelOf(kind: ChannelKind, url: URL): string {
  if (kind === 'webhook') {
    const shown = `${url.host}${url.pathname === '/' ? '' : url.pathname}`;
    return shown.length > 80 ? `${shown.slice(0, 79)}…` : shown;
  }
  const [first = '', second = ''] = url.pathname
    .split('/')
    .filter(Boolean)
    .slice(kind === 'slack' ? 1 : 2);
  return `${url.host}/…/${first.slice(0, 4)}${second ? '…' : ''}`;
}
