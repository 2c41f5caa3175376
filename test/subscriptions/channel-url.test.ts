import { describe, expect, it } from 'vitest';
import { validateChannelUrl } from '../../lib/subscriptions/channel-url';

const publicOnly = { allowLoopback: false };
const SLACK = 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX';
const DISCORD = 'https://discord.com/api/webhooks/1234567890123456789/abcDEF-ghi_JKL';

describe('validateChannelUrl: a channel URL reaches only its platform', () => {
  it('takes Slack and Discord webhook URLs on their own hosts, labelled without their secret part', () => {
    const slack = validateChannelUrl('slack', ` ${SLACK} `, publicOnly);
    expect(slack).toEqual({ ok: true, url: SLACK, label: 'hooks.slack.com/…/T000…' });
    const discord = validateChannelUrl('discord', DISCORD, publicOnly);
    expect(discord).toEqual({ ok: true, url: DISCORD, label: 'discord.com/…/1234…' });
    expect(JSON.stringify([slack, discord].map((c) => c.ok && c.label))).not.toMatch(/XXXX|abcDEF/);
  });

  it.each([
    ['slack', 'https://hooks.slack.com.evil.example/services/T/B/X'],
    ['slack', 'https://evil.example/services/T/B/X'],
    ['slack', 'http://hooks.slack.com/services/T/B/X'],
    ['slack', 'https://hooks.slack.com/workflows/T/B/X'],
    ['slack', 'https://hooks.slack.com:8443/services/T/B/X'],
    ['slack', 'https://user:pw@hooks.slack.com/services/T/B/X'],
    ['discord', 'https://discordapp.com/api/webhooks/1/abc'],
    ['discord', 'https://discord.com/api/webhooks/abc/def'],
    ['discord', 'https://discord.com.evil.example/api/webhooks/1/abc'],
    ['webhook', 'http://example.com/hook'],
    ['webhook', 'https://203.0.113.7/hook'],
    ['webhook', 'https://[2001:db8::1]/hook'],
    ['webhook', 'https://localhost/hook'],
    ['webhook', 'https://127.0.0.1:8080/hook'],
    ['webhook', 'not a url'],
    ['webhook', ''],
    ['webhook', `https://example.com/${'a'.repeat(600)}`],
    ['telegram', 'https://t.me/somebot'],
  ] as const)('refuses %s %s', (kind, url) => {
    expect(validateChannelUrl(kind, url, publicOnly).ok).toBe(false);
  });

  it('takes a webhook over https to a host name', () => {
    expect(validateChannelUrl('webhook', 'https://hooks.example.com/scout?team=1', publicOnly)).toMatchObject({
      ok: true,
      url: 'https://hooks.example.com/scout?team=1',
      label: 'hooks.example.com/scout',
    });
  });

  it('takes http on loopback for every kind only when CHANNEL_ALLOW_LOOPBACK allows it', () => {
    for (const kind of ['slack', 'discord', 'webhook'] as const)
      for (const url of ['http://127.0.0.1:8787/services/T/B/X', 'http://localhost:8787/x', 'http://[::1]:8787/x']) {
        expect(validateChannelUrl(kind, url, { allowLoopback: true }).ok, `${kind} ${url}`).toBe(true);
        expect(validateChannelUrl(kind, url, publicOnly).ok, `${kind} ${url}`).toBe(false);
      }
    expect(validateChannelUrl('webhook', 'http://10.0.0.1:8787/x', { allowLoopback: true }).ok).toBe(false);
  });
});
