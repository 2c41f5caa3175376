import { describe, expect, it } from 'vitest';
import {
  createDestinationLimiter,
  destinationKey,
  destinationLimits,
  DISCORD_POLICY,
  SLACK_POLICY,
  TELEGRAM_BOT_POLICY,
  type DestinationLimit,
} from '../../lib/channels/destination-limiter';
import { deferred } from '../support/deferred';
import { virtualClock } from '../support/virtual-time';

// The limiter on a virtual clock: sleeping moves time, so every wait below is exact and instant.
const SLACK_A = 'https://hooks.slack.com/services/T0A/B0A/aaaa';
const SLACK_B = 'https://hooks.slack.com/services/T0B/B0B/bbbb';
const BOT = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';

function limiterOnVirtualTime() {
  const clock = virtualClock(0);
  const limiter = createDestinationLimiter({ clock: clock.now, sleep: clock.sleep });
  /** Starts a send to these limits and resolves with the instant it started. */
  const startAt = (limits: DestinationLimit[]) => limiter.run(limits, async () => clock.now());
  return { clock, limiter, startAt };
}

describe('each destination is paced by its platform’s documented limit', () => {
  it('two sends to one Slack webhook start one second apart', async () => {
    const { startAt } = limiterOnVirtualTime();
    const slack = destinationLimits('slack', SLACK_A);
    expect(await Promise.all([startAt(slack), startAt(slack)])).toEqual([0, 1000]);
  });

  it('sends to two Slack webhooks do not wait for each other', async () => {
    const { startAt } = limiterOnVirtualTime();
    expect(await Promise.all([startAt(destinationLimits('slack', SLACK_A)), startAt(destinationLimits('slack', SLACK_B))])).toEqual([0, 0]);
  });

  it('a Discord webhook takes five sends in two seconds, the sixth waits for the window', async () => {
    const { startAt } = limiterOnVirtualTime();
    const discord = destinationLimits('discord', 'https://discord.com/api/webhooks/1/x');
    const starts: number[] = [];
    for (let i = 0; i < 6; i++) starts.push(await startAt(discord));
    expect(starts).toEqual([0, 0, 0, 0, 0, DISCORD_POLICY.perMs]);
  });

  it('a Discord bucket its headers say is exhausted holds that webhook until it resets', async () => {
    const { limiter, startAt } = limiterOnVirtualTime();
    const [discord] = destinationLimits('discord', 'https://discord.com/api/webhooks/1/x');
    await startAt([discord]);
    limiter.observe(discord.key, { remaining: 0, resetAfterMs: 1250 });
    expect(await startAt([discord])).toBe(1250);
    limiter.observe(discord.key, { remaining: 3, resetAfterMs: 9000 });
    expect(await startAt([discord])).toBe(1250);
  });

  it('Telegram: one message a second to a chat (with a 50 ms margin), other chats unaffected', async () => {
    const { startAt } = limiterOnVirtualTime();
    const chat = destinationLimits('telegram', '788018187', BOT);
    const other = destinationLimits('telegram', '42', BOT);
    // In turn: on a virtual clock, a concurrent sleeper would move time under the others' feet.
    expect([await startAt(chat), await startAt(other), await startAt(chat)]).toEqual([0, 0, 1050]);
  });

  it('Telegram: a group chat also gets at most 20 a minute', async () => {
    const { startAt } = limiterOnVirtualTime();
    const group = destinationLimits('telegram', '-1001234567890', BOT);
    const starts: number[] = [];
    for (let i = 0; i < 21; i++) starts.push(await startAt(group));
    expect(starts.slice(0, 3)).toEqual([0, 1050, 2100]);
    expect(starts[19]).toBe(19_950);
    expect(starts[20]).toBe(60_000);
  });

  it("Telegram: the bot sends at most 28 a second across all chats, under Telegram's 30", async () => {
    const { startAt } = limiterOnVirtualTime();
    const chats = Array.from({ length: TELEGRAM_BOT_POLICY.sends + 1 }, (_, i) => destinationLimits('telegram', String(1000 + i), BOT));
    const starts: number[] = [];
    for (const limits of chats) starts.push(await startAt(limits));
    expect(starts.filter((at) => at === 0)).toHaveLength(28);
    expect(starts[28]).toBe(1000);
  });

  it('a webhook receiver gets one request at a time', async () => {
    const { limiter } = limiterOnVirtualTime();
    const webhook = destinationLimits('webhook', 'https://hooks.example.com/in');
    const firstHeld = deferred();
    const order: string[] = [];
    const first = limiter.run(webhook, async () => {
      order.push('first starts');
      await firstHeld.promise;
      order.push('first ends');
    });
    const second = limiter.run(webhook, async () => {
      order.push('second starts');
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(['first starts']);
    firstHeld.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(['first starts', 'first ends', 'second starts']);
  });

  it('a failed send still frees its turn', async () => {
    const { limiter } = limiterOnVirtualTime();
    const webhook = destinationLimits('webhook', 'https://hooks.example.com/in');
    await expect(limiter.run(webhook, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(webhook, async () => 'next')).resolves.toBe('next');
  });
});

describe("a 429's retry-after holds only that destination", () => {
  it('the held destination waits; another does not', async () => {
    const { limiter, startAt } = limiterOnVirtualTime();
    const [held] = destinationLimits('slack', SLACK_A);
    limiter.hold(held.key, 30_000);
    expect([await startAt(destinationLimits('slack', SLACK_B)), await startAt([held])]).toEqual([0, 30_000]);
  });

  it("settle holds the destination for a refusal's wait and for an empty Discord bucket", async () => {
    const { limiter, startAt } = limiterOnVirtualTime();
    const slack = destinationLimits('slack', SLACK_A);
    limiter.settle(slack, { status: 'refused', retryAfterMs: 30_000, error: 'slack 429 rate_limited' });
    expect(await startAt(slack)).toBe(30_000);
    const discord = destinationLimits('discord', 'https://discord.com/api/webhooks/1/x');
    limiter.settle(discord, { status: 'sent', detail: '1', rateLimit: { remaining: 0, resetAfterMs: 2000 } });
    expect(await startAt(discord)).toBe(32_000);
    limiter.settle(slack, { status: 'refused', retryAfterMs: null, error: 'slack: connection refused' });
    limiter.settle(slack, { status: 'gone', error: 'slack 404 no_service' });
    expect(await startAt(slack)).toBe(32_000);
  });

  it('says how long a destination is held, without taking its turn', async () => {
    const { limiter, startAt } = limiterOnVirtualTime();
    const chat = destinationLimits('telegram', '788018187', BOT);
    expect(limiter.readyInMs(chat)).toBe(0);
    limiter.settle(chat, { status: 'refused', retryAfterMs: 2_282_000, error: 'telegram 429 Too Many Requests: retry after 2282' });
    expect(limiter.readyInMs(chat)).toBe(2_282_000);
    expect(limiter.readyInMs(chat)).toBe(2_282_000);
    expect(limiter.readyInMs(destinationLimits('telegram', '42', BOT))).toBe(0);
    expect(await startAt(chat)).toBe(2_282_000);
  });

  it('a shorter hold never shortens a longer one', async () => {
    const { clock, limiter } = limiterOnVirtualTime();
    limiter.hold('k', 5000);
    limiter.hold('k', 100);
    await limiter.take('k', SLACK_POLICY);
    expect(clock.now()).toBe(5000);
  });
});

describe('destination keys', () => {
  it('are hashes: no URL, token or chat id is kept under them', () => {
    const key = destinationKey('slack', SLACK_A);
    expect(key).toMatch(/^slack:[A-Za-z0-9_-]{22}$/);
    expect(key).not.toContain('hooks.slack.com');
    const keys = destinationLimits('telegram', '788018187', BOT).map((limit) => limit.key);
    for (const k of keys) {
      expect(k).not.toContain('788018187');
      expect(k).not.toContain(BOT.slice(0, 12));
    }
  });

  it('differ by kind and by destination, and are the same for the same destination', () => {
    expect(destinationKey('slack', SLACK_A)).toBe(destinationKey('slack', SLACK_A));
    expect(destinationKey('slack', SLACK_A)).not.toBe(destinationKey('slack', SLACK_B));
    expect(destinationKey('webhook', SLACK_A)).not.toBe(destinationKey('slack', SLACK_A));
  });
});
