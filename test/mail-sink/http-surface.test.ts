import { describe, expect, it } from 'vitest';
import { email, openSink } from './sink-fixture';

const auth = { authorization: 'Bearer re_test_x', 'content-type': 'application/json' };

describe('mail sink: HTTP surface', () => {
  it('answers 401 missing_api_key without a Bearer key', async () => {
    const { sink } = await openSink();
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer   ' }] as Record<string, string>[]) {
      const res = await fetch(`${sink.url}/emails`, { method: 'POST', headers, body: JSON.stringify(email()) });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ statusCode: 401, name: 'missing_api_key', message: expect.any(String) });
    }
    expect(sink.messages()).toEqual([]);
  });

  it('answers malformed JSON with 400, oversized bodies with 413, unknown routes with 404', async () => {
    const { sink, resend } = await openSink();
    const malformed = await fetch(`${sink.url}/emails`, { method: 'POST', headers: auth, body: '{"from":' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ name: 'validation_error' });

    const huge = await resend.emails.send(email({ html: 'x'.repeat(5 * 1024 * 1024 + 1) }));
    expect(huge.error).toMatchObject({ statusCode: 413 });

    const unknown = await fetch(`${sink.url}/nope`, { headers: auth });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ statusCode: 404, name: 'not_found' });

    const badEscape = await fetch(`${sink.url}/emails/%E0%A4%A`, { headers: auth });
    expect(badEscape.status).toBe(404);
    const wrongMethod = await fetch(`${sink.url}/emails`, { method: 'PUT', headers: auth, body: '{}' });
    expect(wrongMethod.status).toBe(405);

    expect(sink.messages()).toEqual([]);
    expect((await resend.emails.send(email())).error).toBeNull();
  });

  it('serves health, messages and clear over HTTP', async () => {
    const { sink, resend } = await openSink();
    const health = await fetch(`${sink.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('ok');

    await resend.emails.send(email({ to: 'a@example.com', subject: 'one' }));
    await resend.emails.send(email({ to: 'b@example.com', subject: 'two' }));
    const all = (await (await fetch(`${sink.url}/sink/messages`)).json()) as { messages: { subject: string }[] };
    expect(all.messages.map((m) => m.subject)).toEqual(['one', 'two']);
    const toB = (await (await fetch(`${sink.url}/sink/messages?to=b@example.com&apiKey=re_test_x`)).json()) as { messages: unknown[] };
    expect(toB.messages).toHaveLength(1);

    expect((await fetch(`${sink.url}/sink/messages`, { method: 'DELETE' })).status).toBe(200);
    expect(sink.messages()).toEqual([]);
  });
});
