import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendChannelRequest, type ChannelHttpDeps } from '../../../lib/channels/transports/send-channel-request';
import { capturedAnswers, startAnswerServer, type AnswerServer } from './answer-server';

// Each platform's captured answers (test/channels/fixtures/<platform>/, with their sources), served
// verbatim by a real HTTP server on 127.0.0.1, and the outcome Scout draws from each.
const BOT_TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const SLACK_PATH = '/services/T0A1B2C3D/B0E4F5G6H/abcDEF123ghiJKL456mnoPQR';
const DISCORD_PATH = '/api/webhooks/1234567890123456789/AbC-dEf_123-xyz';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BODY = JSON.stringify({ text: 'A posting <b>&</b>', chat_id: '788018187' });

let server: AnswerServer;
let deps: ChannelHttpDeps;
beforeAll(async () => {
  server = await startAnswerServer();
  deps = { allowLoopback: true, telegram: { apiBaseUrl: server.origin, botToken: BOT_TOKEN }, timeoutMs: 5000 };
});
afterAll(async () => server.close());

const request = { body: BODY, messageId: 'msg_2026-12-06_alert_x1', attempt: 1 };
const targets = {
  slack: () => ({ kind: 'slack' as const, destination: `${server.origin}${SLACK_PATH}`, secret: null }),
  discord: () => ({ kind: 'discord' as const, destination: `${server.origin}${DISCORD_PATH}`, secret: null }),
  telegram: () => ({ kind: 'telegram' as const, destination: '788018187', secret: null }),
  webhook: () => ({ kind: 'webhook' as const, destination: `${server.origin}/scout/in`, secret: SECRET }),
};

describe.each(Object.keys(targets) as Array<keyof typeof targets>)('%s: each captured answer means what the platform says', (platform) => {
  it.each(capturedAnswers(platform).map((answer) => [answer.name, answer] as const))('%s', async (_, answer) => {
    server.replay(answer);
    const outcome = await sendChannelRequest(targets[platform](), request, deps);
    expect(outcome).toMatchObject(answer.expect);
    if (!('rateLimit' in answer.expect)) expect(outcome).not.toHaveProperty('rateLimit');
    if ('error' in outcome) {
      expect(outcome.error.length).toBeLessThanOrEqual(200);
      expect(outcome.error).not.toContain(server.origin);
      expect(outcome.error).not.toContain(BOT_TOKEN);
    }
  });
});

describe('the request each platform receives', () => {
  it('Slack: the body as frozen, as JSON, to the webhook URL itself', async () => {
    server.replay({ status: 200, headers: {}, body: 'ok' });
    const before = server.received.length;
    await sendChannelRequest(targets.slack(), request, deps);
    const [got] = server.received.slice(before);
    expect(got).toMatchObject({ method: 'POST', url: SLACK_PATH, body: BODY });
    expect(got.headers['content-type']).toBe('application/json');
  });

  it('Discord: the same, with wait=true so the answer names the message', async () => {
    server.replay({ status: 204, headers: {}, body: '' });
    const before = server.received.length;
    await sendChannelRequest(targets.discord(), request, deps);
    expect(server.received.slice(before)).toMatchObject([{ method: 'POST', url: `${DISCORD_PATH}?wait=true`, body: BODY }]);
  });

  it("Telegram: sendMessage under the bot's token, the body (with its chat_id) as given", async () => {
    server.replay({ status: 200, headers: {}, body: '{"ok":true,"result":{"message_id":1}}' });
    const before = server.received.length;
    await sendChannelRequest(targets.telegram(), request, deps);
    expect(server.received.slice(before)).toMatchObject([{ method: 'POST', url: `/bot${BOT_TOKEN}/sendMessage`, body: BODY }]);
  });

  it('Telegram without a configured bot sends nothing and can be tried later', async () => {
    const before = server.received.length;
    const outcome = await sendChannelRequest(targets.telegram(), request, { ...deps, telegram: null });
    expect(outcome).toMatchObject({ status: 'refused' });
    expect(server.received.length).toBe(before);
  });

  it('a stored destination the rules no longer accept is not posted to', async () => {
    const before = server.received.length;
    const outcome = await sendChannelRequest(targets.slack(), request, { ...deps, allowLoopback: false });
    expect(outcome).toEqual({ status: 'rejected', error: 'slack: destination refused by the address rules' });
    expect(server.received.length).toBe(before);
  });
});
