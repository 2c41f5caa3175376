import { describe, expect, it } from 'vitest';
import { botApi, openStandIn, postJson } from './stand-in-fixture';

const SLACK = 'T1/B1/secret';

describe("channel stand-in: injected faults answer in each platform's own words", () => {
  it('rate-limit: Slack 429 with Retry-After, Discord retry_after in the body and the header, Telegram parameters.retry_after without a header, webhooks Retry-After', async () => {
    const standIn = await openStandIn();
    standIn.inject({ destination: SLACK, fault: 'rate-limit', retryAfterSeconds: 2 });
    standIn.inject({ destination: '222', fault: 'rate-limit', retryAfterSeconds: 0.5 });
    standIn.inject({ destination: '4242', fault: 'rate-limit', retryAfterSeconds: 7 });
    standIn.inject({ destination: 'ada', fault: 'rate-limit', retryAfterSeconds: 3 });

    const slack = await postJson(standIn.slackUrl(SLACK), { text: 'hi' });
    expect([slack.status, slack.headers.get('retry-after'), await slack.json()]).toEqual([
      429,
      '2',
      { retry_after: 2, ok: false, error: 'rate_limited' },
    ]);

    const discord = await postJson(standIn.discordUrl('222', 'tok'), { content: 'hi' });
    expect(discord.status).toBe(429);
    expect(await discord.json()).toEqual({ message: 'You are being rate limited.', retry_after: 0.5, global: false });
    expect(discord.headers.get('retry-after')).toBe('1');
    expect(discord.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(discord.headers.get('x-ratelimit-bucket')).toBeTruthy();

    const telegram = await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: 'hi' });
    expect([telegram.status, await telegram.json()]).toEqual([
      429,
      { ok: false, error_code: 429, description: 'Too Many Requests: retry after 7', parameters: { retry_after: 7 } },
    ]);
    expect(telegram.headers.get('retry-after')).toBeNull();

    const hook = await postJson(standIn.hookUrl('ada'), { type: 'test' });
    expect([hook.status, hook.headers.get('retry-after')]).toEqual([429, '3']);

    // Once each (times defaults to 1): the next message goes through, and only it was received.
    expect((await postJson(standIn.slackUrl(SLACK), { text: 'hi' })).status).toBe(200);
    expect((await postJson(standIn.discordUrl('222', 'tok'), { content: 'hi' })).status).toBe(204);
    expect((await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: 'hi' })).status).toBe(200);
    expect((await postJson(standIn.hookUrl('ada'), { type: 'test' })).status).toBe(200);
    expect(standIn.received().map((r) => r.platform)).toEqual(['slack', 'discord', 'telegram', 'webhook']);
    expect(standIn.received({ all: true }).filter((r) => r.status === 429)).toHaveLength(4);
  });

  it('server-error: the status asked for (500 by default), `times` requests in a row', async () => {
    const standIn = await openStandIn();
    standIn.inject({ destination: SLACK, fault: 'server-error', times: 2 });
    expect([
      (await postJson(standIn.slackUrl(SLACK), { text: 'a' })).status,
      (await postJson(standIn.slackUrl(SLACK), { text: 'b' })).status,
    ]).toEqual([500, 500]);
    expect((await postJson(standIn.slackUrl(SLACK), { text: 'c' })).status).toBe(200);

    standIn.inject({ destination: '333', fault: 'server-error', status: 502 });
    const discord = await postJson(standIn.discordUrl('333', 'tok'), { content: 'hi' });
    expect([discord.status, await discord.json()]).toEqual([502, { message: '502: Bad Gateway', code: 0 }]);

    standIn.inject({ destination: '4242', fault: 'server-error', status: 503 });
    standIn.inject({ destination: '4242', fault: 'server-error' });
    const nginx = await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: 'hi' });
    expect(nginx.status).toBe(503);
    expect(await nginx.text()).toContain('<center><h1>503 Service Temporarily Unavailable</h1></center>');
    const internal = await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: 'hi' });
    expect([internal.status, await internal.json()]).toEqual([500, { ok: false, error_code: 500, description: 'Internal Server Error' }]);

    expect(standIn.received().map((r) => r.body)).toEqual([{ text: 'c' }]);
  });

  it('drop: the message is recorded as received, then the socket closes without an answer', async () => {
    const standIn = await openStandIn();
    standIn.inject({ destination: '*', fault: 'drop', times: 2 });
    await expect(postJson(standIn.discordUrl('444', 'tok'), { content: 'maybe' })).rejects.toThrow(TypeError);
    await expect(botApi(standIn.url, 'sendMessage', { chat_id: 77, text: 'maybe' })).rejects.toThrow(TypeError);
    expect((await postJson(standIn.discordUrl('444', 'tok'), { content: 'surely' })).status).toBe(204);

    const received = standIn.received();
    expect(received.map((r) => [r.destination, r.outcome, r.status, r.accepted])).toEqual([
      ['444', 'dropped', null, true],
      ['77', 'dropped', null, true],
      ['444', 'answered', 204, true],
    ]);
  });

  it('hang: never answered, so the sender times out; recorded as not taken; close() still ends it', async () => {
    const standIn = await openStandIn();
    standIn.inject({ destination: 'slow', fault: 'hang' });
    const started = performance.now();
    await expect(postJson(standIn.hookUrl('slow'), { type: 'test' }, { signal: AbortSignal.timeout(300) })).rejects.toThrow(
      /aborted|timeout/i,
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    expect(standIn.received({ destination: 'slow', all: true }).map((r) => [r.outcome, r.status, r.accepted])).toEqual([
      ['hung', null, false],
    ]);
    expect(standIn.received({ destination: 'slow' })).toEqual([]);

    standIn.inject({ destination: 'slow', fault: 'hang' });
    const pending = postJson(standIn.hookUrl('slow'), { type: 'test' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await standIn.close();
    await expect(pending).rejects.toThrow(TypeError);
  });

  it("gone: each platform's own answer, on every request until the fault is cleared", async () => {
    const standIn = await openStandIn();
    for (const destination of [SLACK, 'T2/B2/archived', '555', '4242', 'ada'])
      standIn.inject({ destination, fault: 'gone', ...(destination === 'T2/B2/archived' ? { status: 410 } : {}) });

    for (let i = 0; i < 2; i++) {
      const slack = await postJson(standIn.slackUrl(SLACK), { text: 'hi' });
      expect([slack.status, await slack.text()]).toEqual([404, 'no_service']);
    }
    const archived = await postJson(standIn.slackUrl('T2/B2/archived'), { text: 'hi' });
    expect([archived.status, await archived.text()]).toEqual([410, 'channel_is_archived']);
    const discord = await postJson(`${standIn.discordUrl('555', 'tok')}?wait=true`, { content: 'hi' });
    expect([discord.status, await discord.json()]).toEqual([404, { message: 'Unknown Webhook', code: 10015 }]);
    const telegram = await botApi(standIn.url, 'sendMessage', { chat_id: '4242', text: 'hi' });
    expect([telegram.status, await telegram.json()]).toEqual([
      403,
      { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
    ]);
    expect([(await postJson(standIn.hookUrl('ada'), {})).status, (await postJson(standIn.hookUrl('ada'), {})).status]).toEqual([410, 410]);
    expect(standIn.faults().find((f) => f.destination === SLACK)).toMatchObject({ fault: 'gone', remaining: null });

    standIn.clearFaults(SLACK);
    expect((await postJson(standIn.slackUrl(SLACK), { text: 'hi' })).status).toBe(200);
    expect((await postJson(standIn.hookUrl('ada'), {})).status).toBe(410);
    expect(standIn.received()).toHaveLength(1);
  });

  it("a destination's own fault comes before a '*' one, and `platform` keeps a fault to one platform", async () => {
    const standIn = await openStandIn();
    standIn.inject({ destination: '*', fault: 'server-error', times: 10 });
    standIn.inject({ destination: '4242', fault: 'gone', platform: 'telegram' });
    expect((await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: 'hi' })).status).toBe(403);
    // A Discord webhook with the same digits is another destination: the blanket fault applies.
    expect((await postJson(standIn.discordUrl('4242', 'tok'), { content: 'hi' })).status).toBe(500);
    expect((await postJson(standIn.hookUrl('other'), {})).status).toBe(500);
  });

  it('over HTTP: faults injected, listed, validated and cleared; reset forgets what was received', async () => {
    const standIn = await openStandIn();
    const inject = (body: unknown) => postJson(`${standIn.url}/_stand-in/faults`, body);
    expect((await inject({ destination: 'ada', fault: 'rate-limit', retryAfterSeconds: 4, times: 2 })).status).toBe(200);
    expect((await (await fetch(`${standIn.url}/_stand-in/faults`)).json()).faults).toEqual([
      { destination: 'ada', fault: 'rate-limit', retryAfterSeconds: 4, times: 2, remaining: 2 },
    ]);
    expect((await postJson(standIn.hookUrl('ada'), {})).headers.get('retry-after')).toBe('4');

    expect((await inject({ destination: 'ada', fault: 'flood' })).status).toBe(422);
    expect((await inject({ destination: 'ada', fault: 'server-error', status: 418 })).status).toBe(422);
    expect((await inject({ destination: 'ada', fault: 'drop', status: 500 })).status).toBe(422);
    expect((await inject({ fault: 'drop' })).status).toBe(422);
    expect(() => standIn.inject({ destination: 'ada', fault: 'gone', status: 500 })).toThrow(TypeError);

    expect((await fetch(`${standIn.url}/_stand-in/faults?destination=ada`, { method: 'DELETE' })).status).toBe(200);
    expect((await postJson(standIn.hookUrl('ada'), {})).status).toBe(200);
    expect((await (await fetch(`${standIn.url}/_stand-in/received?destination=ada&all=true`)).json()).received).toHaveLength(2);
    expect((await fetch(`${standIn.url}/_stand-in/received?platform=pigeon`)).status).toBe(422);

    await inject({ destination: '*', fault: 'gone' });
    expect((await postJson(`${standIn.url}/_stand-in/reset`, {})).status).toBe(200);
    expect(standIn.received({ all: true })).toEqual([]);
    expect(standIn.faults()).toEqual([]);
    expect((await postJson(standIn.hookUrl('ada'), {})).status).toBe(200);
  });
});
