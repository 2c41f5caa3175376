import { describe, expect, it } from 'vitest';
import { parseDestination, type DestinationKind } from '../../lib/channels/destination';

const SLACK = 'https://hooks.slack.com/services/T0A1B2C3D/B0E4F5G6H/abcDEF123ghiJKL456mnoPQR';
const DISCORD = 'https://discord.com/api/webhooks/1234567890123456789/AbC-dEf_123-xyz';
const strict = { allowLoopback: false };
const loopback = { allowLoopback: true };

const accepted = (kind: DestinationKind, raw: string, options = strict) => {
  const parsed = parseDestination(kind, raw, options);
  if (!parsed.ok) throw new Error(`refused ${raw}: ${parsed.error}`);
  return parsed;
};
const refusal = (kind: DestinationKind, raw: string, options = strict) => {
  const parsed = parseDestination(kind, raw, options);
  if (parsed.ok) throw new Error(`accepted ${raw} as ${parsed.url}`);
  return parsed.error;
};

describe('a Slack destination is an incoming-webhook URL on hooks.slack.com exactly', () => {
  it('accepts the URL Slack gives, and labels it without its key', () => {
    expect(accepted('slack', SLACK)).toEqual({ ok: true, url: SLACK, label: 'hooks.slack.com/services/T0…/B0…/••••' });
  });

  it('accepts surrounding spaces, an upper-case host and an explicit :443 as the same URL', () => {
    expect(accepted('slack', `  ${SLACK}  `).url).toBe(SLACK);
    expect(accepted('slack', SLACK.replace('hooks.slack.com', 'HOOKS.Slack.COM')).url).toBe(SLACK);
    expect(accepted('slack', SLACK.replace('hooks.slack.com', 'hooks.slack.com:443')).url).toBe(SLACK);
  });

  it.each([
    ['a longer host that starts with it', SLACK.replace('hooks.slack.com', 'hooks.slack.com.evil.com')],
    ['its name in the path of another host', 'https://evil.com/hooks.slack.com/services/T0A1B2C3D/B0E4F5G6H/abc'],
    ['its name as the user name of another host', 'https://hooks.slack.com@evil.com/services/T0A1B2C3D/B0E4F5G6H/abc'],
    ['a user name and password on the right host', SLACK.replace('https://', 'https://user:pass@')],
    ['a trailing dot on the host', SLACK.replace('hooks.slack.com', 'hooks.slack.com.')],
    ['a Cyrillic lookalike host (punycode)', SLACK.replace('hooks.slack.com', 'hooks.slаck.com')],
    ['a punycode host written out', SLACK.replace('hooks.slack.com', 'xn--hooks-slck-abc.com')],
    ['http, without loopback allowed', SLACK.replace('https://', 'http://')],
    ['a port', SLACK.replace('hooks.slack.com', 'hooks.slack.com:8443')],
    ['another path', 'https://hooks.slack.com/workflows/T0A1B2C3D/A0B/123/abc'],
    ['a truncated path', 'https://hooks.slack.com/services/T0A1B2C3D/B0E4F5G6H'],
    ['a query', `${SLACK}?redirect=https://evil.com`],
    ['a fragment', `${SLACK}#x`],
    ['a Discord URL', DISCORD],
    ['not a URL', 'hooks.slack.com/services/T0A1B2C3D/B0E4F5G6H/abc'],
    ['nothing', '   '],
    ['a javascript: URL', 'javascript:alert(1)'],
  ])('refuses %s', (_, raw) => {
    expect(refusal('slack', raw)).toMatch(/\w/);
  });

  it('says what a Slack URL looks like when the host is wrong', () => {
    expect(refusal('slack', 'https://hooks.slack.com.evil.com/services/T0/B0/x')).toContain('hooks.slack.com');
  });

  it('with loopback allowed, accepts a local stand-in only on the Slack path', () => {
    for (const host of ['127.0.0.1:4010', 'localhost:4010', '[::1]:4010']) {
      const parsed = accepted('slack', `http://${host}/services/T0A1B2C3D/B0E4F5G6H/abc123`, loopback);
      expect(parsed.url).toBe(`http://${host}/services/T0A1B2C3D/B0E4F5G6H/abc123`);
      expect(parsed.label).toBe(`${host}/services/T0…/B0…/••••`);
    }
    expect(refusal('slack', 'http://127.0.0.1:4010/anything', loopback)).toMatch(/Slack/);
    expect(refusal('slack', 'http://10.0.0.1:4010/services/T0A1B2C3D/B0E4F5G6H/abc', loopback)).toMatch(/https/);
  });
});

describe('a Discord destination is a webhook URL on discord.com', () => {
  it('accepts the URL Discord gives, and labels it with the start of its id only', () => {
    expect(accepted('discord', DISCORD)).toEqual({ ok: true, url: DISCORD, label: 'discord.com webhook 1234…' });
  });

  it('stores discordapp.com, a versioned path and a trailing slash as the plain discord.com URL', () => {
    expect(accepted('discord', DISCORD.replace('discord.com', 'discordapp.com')).url).toBe(DISCORD);
    expect(accepted('discord', DISCORD.replace('/api/', '/api/v10/')).url).toBe(DISCORD);
    expect(accepted('discord', `${DISCORD}/`).url).toBe(DISCORD);
  });

  it('refuses the client release channels, naming the fix', () => {
    expect(refusal('discord', DISCORD.replace('discord.com', 'canary.discord.com'))).toContain(
      'replace canary.discord.com with discord.com',
    );
    expect(refusal('discord', DISCORD.replace('discord.com', 'ptb.discord.com'))).toContain('ptb.discord.com');
  });

  it.each([
    ['a longer host', DISCORD.replace('discord.com', 'discord.com.evil.com')],
    ['a lookalike host', DISCORD.replace('discord.com', 'discorcl.com')],
    ['its name as a user name', 'https://discord.com@evil.com/api/webhooks/1234567890123456789/abc'],
    ['a non-numeric id', 'https://discord.com/api/webhooks/abc/def'],
    ['no token', 'https://discord.com/api/webhooks/1234567890123456789'],
    ['a deeper path', `${DISCORD}/slack`],
    ['a query', `${DISCORD}?thread_id=1`],
    ['http', DISCORD.replace('https://', 'http://')],
  ])('refuses %s', (_, raw) => {
    expect(refusal('discord', raw)).toMatch(/\w/);
  });

  it('with loopback allowed, accepts a local stand-in on the webhook path', () => {
    const raw = 'http://127.0.0.1:4011/api/webhooks/1234567890123456789/tok';
    expect(accepted('discord', raw, loopback)).toEqual({ ok: true, url: raw, label: '127.0.0.1:4011 webhook 1234…' });
    expect(refusal('discord', 'http://127.0.0.1:4011/services/T0/B0/x', loopback)).toMatch(/Discord/);
  });
});

describe('a webhook destination is a public https URL', () => {
  it('accepts any https host and port, and labels it without the query', () => {
    expect(accepted('webhook', 'https://hooks.example.com/scout?key=secret#frag')).toEqual({
      ok: true,
      url: 'https://hooks.example.com/scout?key=secret',
      label: 'hooks.example.com/scout',
    });
    expect(accepted('webhook', 'https://hooks.example.com:8443/in').label).toBe('hooks.example.com:8443/in');
    expect(accepted('webhook', 'https://8.8.8.8/in').url).toBe('https://8.8.8.8/in');
  });

  it.each([
    ['http', 'http://hooks.example.com/in'],
    ['localhost', 'https://localhost/in'],
    ['a .localhost name', 'https://app.localhost/in'],
    ['loopback', 'https://127.0.0.1/in'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data'],
    ['a private address', 'https://10.0.0.1/'],
    ['an IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/'],
    ['IPv6 loopback', 'https://[::1]/'],
    ['loopback written as one decimal number', 'https://2130706433/'],
    ['loopback written in hex', 'https://0x7f000001/'],
    ['loopback written in octal parts', 'https://0177.0.0.1/'],
    ['a single-label host', 'https://intranet/in'],
    ['a user name', 'https://user@hooks.example.com/in'],
    ['a trailing dot', 'https://localhost./in'],
    ['ftp', 'ftp://hooks.example.com/in'],
    ['an overlong URL', `https://hooks.example.com/${'a'.repeat(2100)}`],
  ])('refuses %s', (_, raw) => {
    expect(refusal('webhook', raw)).toMatch(/\w/);
  });

  it('says why a private address is refused', () => {
    expect(refusal('webhook', 'https://10.0.0.1/')).toMatch(/public/);
  });

  it('with loopback allowed, accepts http to this machine only', () => {
    expect(accepted('webhook', 'http://127.0.0.1:4012/in', loopback).url).toBe('http://127.0.0.1:4012/in');
    expect(accepted('webhook', 'http://localhost:4012/in', loopback).label).toBe('localhost:4012/in');
    expect(accepted('webhook', 'http://[::1]:4012/in', loopback).url).toBe('http://[::1]:4012/in');
    expect(refusal('webhook', 'http://10.0.0.1:4012/in', loopback)).toMatch(/https/);
    expect(refusal('webhook', 'https://169.254.169.254/', loopback)).toMatch(/public/);
  });
});
