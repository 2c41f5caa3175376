import { isIP } from 'node:net';
import { isPublicAddress } from '../http/address-guard';

/**
 * What a subscriber types as a Slack, Discord or webhook destination, checked before anything is
 * sent to it (docs/channels.md, "Destinations and the address guard"). Slack and Discord URLs must
 * name those platforms' hosts exactly: a URL that merely mentions them (in its path, its user name,
 * a longer host name) is refused, so a channel can never make Scout post to a host of the
 * subscriber's choosing under a platform's name. A webhook may name any public https host; the
 * address it resolves to is checked again when connecting (lib/http/address-guard.ts), since DNS
 * can change after this check.
 */
export type DestinationKind = 'slack' | 'discord' | 'webhook';

export type ParsedDestination = { ok: true; url: string; label: string } | { ok: false; error: string };

export type DestinationOptions = {
  /** CHANNEL_ALLOW_LOOPBACK: the local stand-ins and tests listen on 127.0.0.1, localhost or [::1]. */
  allowLoopback: boolean;
};

/** Longer than any real Slack, Discord or receiver URL; keeps a pasted page out of the document. */
export const MAX_DESTINATION_LENGTH = 2048;

const SLACK_HOST = 'hooks.slack.com';
const SLACK_PATH = /^\/services\/(T[A-Z0-9]{1,20})\/(B[A-Z0-9]{1,20})\/([A-Za-z0-9]{1,64})$/;
/** discordapp.com was Discord's documented API host before discord.com and still answers: stored as discord.com. */
const DISCORD_HOSTS = new Set(['discord.com', 'discordapp.com']);
/** Client release channels, not documented as API hosts: refused with the fix rather than guessed equivalent. */
const DISCORD_CLIENT_HOSTS = /^(ptb|canary)\.discord(app)?\.com$/;
const DISCORD_PATH = /^\/api(?:\/v\d{1,2})?\/webhooks\/(\d{15,21})\/([A-Za-z0-9_-]{1,100})\/?$/;

const KIND_NAMES: Record<DestinationKind, string> = { slack: 'Slack webhook', discord: 'Discord webhook', webhook: 'webhook' };
const EXPECTED: Record<DestinationKind, string> = {
  slack: 'a Slack incoming-webhook URL looks like https://hooks.slack.com/services/T…/B…/…',
  discord: 'a Discord webhook URL looks like https://discord.com/api/webhooks/{id}/{token}',
  webhook: 'use an https:// address',
};

const refuse = (error: string): ParsedDestination => ({ ok: false, error });

/** A host that is this machine: the only private place CHANNEL_ALLOW_LOOPBACK opens. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** The address in a URL's hostname when it is an IP literal (the URL parser has already turned 0x7f000001 into 127.0.0.1). */
const ipLiteral = (hostname: string): string | null => {
  const host = hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
};

/** Checks shared by every kind: a URL, http(s), no user name, a host that is not a trick. */
function readUrl(kind: DestinationKind, raw: string, options: DestinationOptions): { url: URL; loopback: boolean } | { error: string } {
  const text = raw.trim();
  if (!text) return { error: `Paste the ${KIND_NAMES[kind]} URL.` };
  if (text.length > MAX_DESTINATION_LENGTH) return { error: `That URL is too long (at most ${MAX_DESTINATION_LENGTH} characters).` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: `That is not a web address: ${EXPECTED[kind]}.` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: `The address must start with https://: ${EXPECTED[kind]}.` };
  if (url.username || url.password) return { error: 'The address must not contain a user name or password (nothing before an @).' };
  if (url.hostname.endsWith('.')) return { error: 'The host name must not end with a dot.' };
  const loopback = isLoopbackHost(url.hostname);
  if (loopback && options.allowLoopback) return { url, loopback };
  if (url.protocol !== 'https:') return { error: `The address must start with https:// (not http://): ${EXPECTED[kind]}.` };
  return { url, loopback: false };
}

function parseSlack(url: URL, loopback: boolean): ParsedDestination {
  if (!loopback && url.hostname !== SLACK_HOST) return refuse(`The host must be exactly ${SLACK_HOST}: ${EXPECTED.slack}.`);
  if (!loopback && url.port) return refuse(`A Slack webhook URL has no port: ${EXPECTED.slack}.`);
  if (url.search || url.hash) return refuse(`A Slack webhook URL ends after its key, with no ? or #: ${EXPECTED.slack}.`);
  const path = SLACK_PATH.exec(url.pathname);
  if (!path) return refuse(`That is not a Slack incoming-webhook path: ${EXPECTED.slack}.`);
  const [, team, bot] = path;
  return { ok: true, url: url.href, label: `${url.host}/services/${team.slice(0, 2)}…/${bot.slice(0, 2)}…/••••` };
}

function parseDiscord(url: URL, loopback: boolean): ParsedDestination {
  if (DISCORD_CLIENT_HOSTS.test(url.hostname))
    return refuse(`Use the discord.com address: replace ${url.hostname} with discord.com (${EXPECTED.discord}).`);
  if (!loopback && !DISCORD_HOSTS.has(url.hostname)) return refuse(`The host must be discord.com: ${EXPECTED.discord}.`);
  if (!loopback && url.port) return refuse(`A Discord webhook URL has no port: ${EXPECTED.discord}.`);
  if (url.search || url.hash) return refuse(`A Discord webhook URL ends after its token, with no ? or #: ${EXPECTED.discord}.`);
  const path = DISCORD_PATH.exec(url.pathname);
  if (!path) return refuse(`That is not a Discord webhook path: ${EXPECTED.discord}.`);
  const [, id, token] = path;
  const origin = loopback ? url.origin : 'https://discord.com';
  const host = loopback ? url.host : 'discord.com';
  return { ok: true, url: `${origin}/api/webhooks/${id}/${token}`, label: `${host} webhook ${id.slice(0, 4)}…` };
}

/** The part of a webhook URL a page may show: host and path, never the query (receivers put keys there). */
const webhookLabel = (url: URL) => {
  const path = url.pathname === '/' ? '' : url.pathname;
  const shown = `${url.host}${path}`;
  return shown.length > 80 ? `${shown.slice(0, 79)}…` : shown;
};

function parseWebhook(url: URL, loopback: boolean): ParsedDestination {
  if (!loopback) {
    const host = url.hostname.toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost')) return refuse('The address must be reachable on the internet, not localhost.');
    const ip = ipLiteral(host);
    if (ip && !isPublicAddress(ip)) return refuse('The address must be a public one: private, local and reserved addresses are refused.');
    if (!host.includes('.') && !ip) return refuse('The host must be a full domain name (like hooks.example.com).');
  }
  url.hash = '';
  return { ok: true, url: url.href, label: webhookLabel(url) };
}

/**
 * Parses and checks a destination as typed. `url` is what is stored and posted to (Discord's
 * normalised to discord.com, no version in the path); `label` is what a page shows of it, without
 * the secret part.
 */
export function parseDestination(kind: DestinationKind, raw: string, options: DestinationOptions): ParsedDestination {
  const read = readUrl(kind, raw, options);
  if ('error' in read) return refuse(read.error);
  if (kind === 'slack') return parseSlack(read.url, read.loopback);
  if (kind === 'discord') return parseDiscord(read.url, read.loopback);
  return parseWebhook(read.url, read.loopback);
}
