import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { DISCORD_WEBHOOK_BUCKET } from '../../scripts/channel-stand-in/server';
import { BOT_TOKEN, botApi, openStandIn, postJson } from './stand-in-fixture';

describe('channel stand-in: each platform answers a message as the platform does', () => {
  it('Slack: 200 "ok" in plain text; invalid_payload for a body that is not a JSON message; no_text for an empty one', async () => {
    const standIn = await openStandIn();
    const ok = await postJson(standIn.slackUrl('T1/B1/secret'), { text: 'New postings', blocks: [{ type: 'section' }] });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await ok.text()).toBe('ok');

    const notJson = await fetch(standIn.slackUrl('T1/B1/secret'), { method: 'POST', body: 'text=hi' });
    expect([notJson.status, await notJson.text()]).toEqual([400, 'invalid_payload']);
    const form = new URLSearchParams({ payload: JSON.stringify({ text: 'As a form' }) });
    expect(await (await fetch(standIn.slackUrl('T1/B1/secret'), { method: 'POST', body: form })).text()).toBe('ok');
    const badForm = new URLSearchParams({ payload: '{not json' });
    expect(await (await fetch(standIn.slackUrl('T1/B1/secret'), { method: 'POST', body: badForm })).text()).toBe('invalid_payload');
    const empty = await postJson(standIn.slackUrl('T1/B1/secret'), { text: ' ' });
    expect([empty.status, await empty.text()]).toEqual([400, 'no_text']);

    expect(standIn.received({ destination: 'T1/B1/secret' }).map((r) => r.body)).toEqual([
      { text: 'New postings', blocks: [{ type: 'section' }] },
      { payload: '{"text":"As a form"}' },
    ]);
    expect(standIn.received({ destination: 'T1/B1/secret', all: true }).map((r) => r.status)).toEqual([200, 400, 200, 400, 400]);
  });

  it('Discord: 204 without wait; with ?wait=true 200 and the message object; the webhook bucket headers on every answer', async () => {
    const clock = Date.parse('2026-12-01T08:00:00Z');
    const standIn = await openStandIn({ now: () => clock });
    const noWait = await postJson(standIn.discordUrl('111', 'tok'), { content: 'hi' });
    expect(noWait.status).toBe(204);
    expect(Object.fromEntries([...noWait.headers].filter(([name]) => name.startsWith('x-ratelimit')))).toEqual({
      'x-ratelimit-bucket': DISCORD_WEBHOOK_BUCKET,
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '4',
      'x-ratelimit-reset': String(clock / 1000 + 2) + '.000',
      'x-ratelimit-reset-after': '2.000',
    });

    const waited = await postJson(`${standIn.discordUrl('111', 'tok')}?wait=true`, {
      content: 'New postings',
      embeds: [{ title: 'Rust engineer' }],
    });
    expect(waited.status).toBe(200);
    expect(waited.headers.get('x-ratelimit-remaining')).toBe('3');
    const message = await waited.json();
    expect(message).toMatchObject({
      type: 0,
      content: 'New postings',
      embeds: [{ title: 'Rust engineer' }],
      webhook_id: '111',
      author: { id: '111', bot: true },
      mention_everyone: false,
      timestamp: '2026-12-01T08:00:00.000000+00:00',
    });
    expect(message.id).toMatch(/^\d{17,20}$/);
    expect(message.channel_id).toMatch(/^\d+$/);

    const empty = await postJson(standIn.discordUrl('111', 'tok'), { content: '' });
    expect([empty.status, await empty.json()]).toEqual([400, { message: 'Cannot send an empty message', code: 50006 }]);
    const tooLong = await postJson(standIn.discordUrl('111', 'tok'), { content: 'x'.repeat(2001) });
    expect(await tooLong.json()).toMatchObject({ code: 50035, message: 'Invalid Form Body' });
    expect(standIn.received({ destination: '111' })).toHaveLength(2);
  });

  it('Telegram: sendMessage answers the Message, HTML parse mode refused past its tags, 401 for an unknown token, 404 for an unknown method', async () => {
    const clock = Date.parse('2026-12-01T08:00:00Z');
    const standIn = await openStandIn({ now: () => clock });
    const sent = await botApi(standIn.url, 'sendMessage', {
      chat_id: 4242,
      text: '<b>Rust</b> &lt;remote&gt; &amp; more',
      parse_mode: 'HTML',
    });
    expect(sent.status).toBe(200);
    expect(await sent.json()).toEqual({
      ok: true,
      result: {
        message_id: 1,
        from: { id: 7000000001, is_bot: true, first_name: 'Scout', username: 'scout_stand_in_bot' },
        chat: { id: 4242, first_name: 'Subscriber', type: 'private' },
        date: clock / 1000,
        text: 'Rust <remote> & more',
      },
    });
    expect((await (await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: 'again' })).json()).result.message_id).toBe(2);

    const hostile = await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: 'Pay <script>x</script>', parse_mode: 'HTML' });
    expect([hostile.status, await hostile.json()]).toEqual([
      400,
      { ok: false, error_code: 400, description: `Bad Request: can't parse entities: Unsupported start tag "script" at byte offset 4` },
    ]);
    const unclosed = await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: '<b>bold', parse_mode: 'HTML' });
    expect((await unclosed.json()).description).toBe(
      `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`,
    );
    const bareLessThan = await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: 'pay < 100k', parse_mode: 'HTML' });
    expect(bareLessThan.status).toBe(400);
    const empty = await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: '' });
    expect((await empty.json()).description).toBe('Bad Request: message text is empty');
    const long = await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: 'x'.repeat(4097) });
    expect((await long.json()).description).toBe('Bad Request: message is too long');

    const stranger = await botApi(standIn.url, 'sendMessage', { chat_id: 4242, text: 'hi' }, '1:not-a-known-token-at-all');
    expect([stranger.status, await stranger.json()]).toEqual([401, { ok: false, error_code: 401, description: 'Unauthorized' }]);
    const unknown = await botApi(standIn.url, 'sendPigeon', {});
    expect([unknown.status, await unknown.json()]).toEqual([404, { ok: false, error_code: 404, description: 'Not Found' }]);

    expect(standIn.received({ platform: 'telegram' }).map((r) => r.destination)).toEqual(['4242', '4242']);
  });

  it('Telegram: getMe describes the bot; setWebhook records url and secret_token (JSON, form or query) and an empty url removes it', async () => {
    const standIn = await openStandIn();
    expect(await (await botApi(standIn.url, 'getMe')).json()).toEqual({
      ok: true,
      result: {
        id: 7000000001,
        is_bot: true,
        first_name: 'Scout',
        username: 'scout_stand_in_bot',
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
      },
    });
    const set = await botApi(standIn.url, 'setWebhook', { url: 'http://127.0.0.1:9/api/telegram', secret_token: 'stand_in-secret_0123' });
    expect(await set.json()).toEqual({ ok: true, result: true, description: 'Webhook was set' });
    expect(standIn.telegramWebhook()).toEqual({ url: 'http://127.0.0.1:9/api/telegram', secretToken: 'stand_in-secret_0123' });
    expect((await (await fetch(`${standIn.url}/_stand-in/telegram/webhook`)).json()).webhook.secretToken).toBe('stand_in-secret_0123');
    expect((await (await botApi(standIn.url, 'getWebhookInfo')).json()).result.url).toBe('http://127.0.0.1:9/api/telegram');

    const form = await fetch(`${standIn.url}/bot${BOT_TOKEN}/setWebhook?secret_token=other_secret`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'url=http%3A%2F%2F127.0.0.1%3A9%2Fhook',
    });
    expect(form.status).toBe(200);
    expect(standIn.telegramWebhook()).toEqual({ url: 'http://127.0.0.1:9/hook', secretToken: 'other_secret' });
    const badSecret = await botApi(standIn.url, 'setWebhook', { url: 'http://127.0.0.1:9/hook', secret_token: 'has spaces' });
    expect(badSecret.status).toBe(400);

    expect(await (await botApi(standIn.url, 'setWebhook', { url: '' })).json()).toEqual({
      ok: true,
      result: true,
      description: 'Webhook was deleted',
    });
    expect(standIn.telegramWebhook()).toBeNull();
    // Bot API calls that carry no message are not messages a destination received.
    expect(standIn.received({ all: true })).toEqual([]);
  });

  it('webhooks: 200, keeping the exact body and the Standard Webhooks headers so the signature checks out', async () => {
    const standIn = await openStandIn();
    const secret = 'whsec_' + Buffer.from('a stand-in test secret, 32 bytes').toString('base64');
    const payload = JSON.stringify({ type: 'postings.matched', version: 1, data: { postings: [{ id: 'p1', title: 'Rust <engineer>' }] } });
    const timestamp = new Date();
    const signature = new Webhook(secret).sign('msg_1', timestamp, payload);
    const answer = await fetch(standIn.hookUrl('ada'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body: payload,
    });
    expect([answer.status, await answer.text()]).toEqual([200, 'ok']);

    const [arrived] = standIn.received({ destination: 'ada', platform: 'webhook' });
    expect(arrived).toMatchObject({
      rawBody: payload,
      status: 200,
      outcome: 'answered',
      accepted: true,
      headers: { 'webhook-id': 'msg_1' },
    });
    expect(new Webhook(secret).verify(arrived.rawBody, arrived.headers)).toEqual(JSON.parse(payload));
    expect(() =>
      new Webhook('whsec_' + Buffer.from('another secret, also 32 bytes!!').toString('base64')).verify(arrived.rawBody, arrived.headers),
    ).toThrow();

    const overHttp = await (await fetch(`${standIn.url}/_stand-in/received?destination=ada`)).json();
    expect(overHttp.received).toEqual([arrived]);
  });

  it('paths that are no platform, and methods other than POST, are refused without being recorded', async () => {
    const standIn = await openStandIn();
    expect((await fetch(`${standIn.url}/services/T1/B1`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(standIn.slackUrl())).status).toBe(405);
    expect((await fetch(`${standIn.url}/api/webhooks/not-digits/tok`, { method: 'POST' })).status).toBe(404);
    expect(await (await fetch(`${standIn.url}/health`)).text()).toBe('ok');
    expect(standIn.received({ all: true })).toEqual([]);
  });
});
