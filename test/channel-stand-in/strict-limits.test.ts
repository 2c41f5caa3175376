import { describe, expect, it } from 'vitest';
import { SLACK_BURST } from '../../scripts/channel-stand-in/server';
import { botApi, openStandIn, postJson } from './stand-in-fixture';

/** A stand-in enforcing the platforms' rates on a clock the test moves. */
async function strictStandIn() {
  const clock = { at: Date.parse('2026-12-01T08:00:00Z') };
  const standIn = await openStandIn({ strictLimits: true, now: () => clock.at });
  return { standIn, clock };
}

describe("channel stand-in: strictLimits refuses past each platform's documented rate with its own 429", () => {
  it('Slack: a short burst is tolerated, then 429 rate_limited until a second has refilled the webhook', async () => {
    const { standIn, clock } = await strictStandIn();
    const post = () => postJson(standIn.slackUrl('T1/B1/a'), { text: 'hi' });
    for (let i = 0; i < SLACK_BURST; i++) expect((await post()).status).toBe(200);
    const refused = await post();
    expect([refused.status, refused.headers.get('retry-after'), await refused.json()]).toEqual([
      429,
      '1',
      { retry_after: 1, ok: false, error: 'rate_limited' },
    ]);
    // Another webhook has its own allowance.
    expect((await postJson(standIn.slackUrl('T1/B2/b'), { text: 'hi' })).status).toBe(200);

    clock.at += 1000;
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(429);
    // One a second is the sustained rate: a sender keeping to it is never refused.
    for (let i = 0; i < 5; i++) {
      clock.at += 1000;
      expect((await post()).status).toBe(200);
    }
    expect(standIn.received({ destination: 'T1/B1/a' })).toHaveLength(SLACK_BURST + 6);
  });

  it('Discord: 5 per 2 s per webhook, then 429 with retry_after counting to the bucket reset', async () => {
    const { standIn, clock } = await strictStandIn();
    const post = () => postJson(standIn.discordUrl('666', 'tok'), { content: 'hi' });
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await post();
      expect(answer.status).toBe(204);
      remaining.push(answer.headers.get('x-ratelimit-remaining'));
      clock.at += 100;
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ message: 'You are being rate limited.', retry_after: 1.5, global: false });
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.headers.get('x-ratelimit-reset-after')).toBe('1.500');
    expect((await postJson(standIn.discordUrl('777', 'tok'), { content: 'hi' })).status).toBe(204);

    clock.at += 1500;
    expect((await post()).headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('Telegram: one message a second in a chat and 30 a second for the bot, refused with parameters.retry_after', async () => {
    const { standIn, clock } = await strictStandIn();
    const send = (chatId: number) => botApi(standIn.url, 'sendMessage', { chat_id: chatId, text: 'hi' });
    expect((await send(1)).status).toBe(200);
    const sameChat = await send(1);
    expect([sameChat.status, await sameChat.json()]).toEqual([
      429,
      { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } },
    ]);
    for (let chat = 2; chat <= 30; chat++) expect((await send(chat)).status).toBe(200);
    const overBot = await send(31);
    expect([overBot.status, (await overBot.json()).parameters]).toEqual([429, { retry_after: 1 }]);

    clock.at += 1000;
    expect((await send(1)).status).toBe(200);
    expect((await send(31)).status).toBe(200);
    expect(standIn.received({ platform: 'telegram' })).toHaveLength(32);
    expect(standIn.received({ platform: 'telegram', all: true }).filter((r) => r.status === 429)).toHaveLength(2);
  });

  it('without strictLimits nothing is refused for rate, though Discord still reports its bucket', async () => {
    const standIn = await openStandIn();
    for (let i = 0; i < 8; i++) {
      expect((await postJson(standIn.slackUrl('T1/B1/a'), { text: 'hi' })).status).toBe(200);
      expect((await botApi(standIn.url, 'sendMessage', { chat_id: 1, text: 'hi' })).status).toBe(200);
    }
    const statuses: number[] = [];
    let lastRemaining: string | null = null;
    for (let i = 0; i < 7; i++) {
      const answer = await postJson(standIn.discordUrl('888', 'tok'), { content: 'hi' });
      statuses.push(answer.status);
      lastRemaining = answer.headers.get('x-ratelimit-remaining');
    }
    expect(statuses.every((s) => s === 204)).toBe(true);
    expect(lastRemaining).toBe('0');
  });
});
