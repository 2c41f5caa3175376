import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../../lib/channels/transports/webhook';
import { sendChannelRequest } from '../../../lib/channels/transports/send-channel-request';
import { startAnswerServer, type AnswerServer } from './answer-server';

// A subscriber's receiver checks Scout's requests with any Standard Webhooks library; the
// reference one must accept them, and must refuse them under another secret or another body.
let server: AnswerServer;
beforeAll(async () => {
  server = await startAnswerServer();
  server.replay({ status: 204, headers: {}, body: '' });
});
afterAll(async () => server.close());

const deps = { allowLoopback: true, telegram: null };
const body = JSON.stringify({ version: 1, type: 'alert', postings: [{ id: 'remotive_abc', title: 'Engineer' }] });

async function sendAs(secret: string, messageId: string, attempt: number, now: Date) {
  const before = server.received.length;
  const outcome = await sendChannelRequest(
    { kind: 'webhook', destination: `${server.origin}/hooks/scout`, secret },
    { body, messageId, attempt },
    { ...deps, now: () => now },
  );
  expect(outcome).toEqual({ status: 'sent', detail: null });
  return server.received[before];
}

describe('webhook requests are signed by Standard Webhooks', () => {
  it('a new secret is whsec_ and base64 of 32 random bytes', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('the reference verifier accepts the request as received', async () => {
    const secret = newWebhookSecret();
    const received = await sendAs(secret, 'msg_abc', 1, new Date());
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.body).toBe(body);
    const headers = {
      'webhook-id': String(received.headers['webhook-id']),
      'webhook-timestamp': String(received.headers['webhook-timestamp']),
      'webhook-signature': String(received.headers['webhook-signature']),
    };
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    expect(new Webhook(secret).verify(received.body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(received.body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(received.body.replace('Engineer', 'Engineer!'), headers)).toThrow();
  });

  it('a retry keeps webhook-id (receivers drop the repeat) and is signed at its own time', async () => {
    const secret = newWebhookSecret();
    const first = await sendAs(secret, 'msg_digest_2026-12-06', 1, new Date('2026-12-06T08:00:00Z'));
    const second = await sendAs(secret, 'msg_digest_2026-12-06', 2, new Date('2026-12-06T08:00:05Z'));
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(first.headers['webhook-timestamp']).toBe(String(Date.parse('2026-12-06T08:00:00Z') / 1000));
    expect(second.headers['webhook-timestamp']).toBe(String(Date.parse('2026-12-06T08:00:05Z') / 1000));
    expect(second.body).toBe(first.body);
  });

  it('a webhook channel without its secret sends nothing', async () => {
    const before = server.received.length;
    const outcome = await sendChannelRequest(
      { kind: 'webhook', destination: `${server.origin}/hooks/scout`, secret: null },
      { body, messageId: 'msg_x', attempt: 1 },
      deps,
    );
    expect(outcome).toMatchObject({ status: 'rejected' });
    expect(server.received.length).toBe(before);
  });
});
