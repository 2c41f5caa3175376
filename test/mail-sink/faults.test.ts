import { describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { email, openSink } from './sink-fixture';

describe('mail sink: injected faults', () => {
  it('rate-limits per key with 429, retry-after and ratelimit-* headers', async () => {
    let clock = Date.parse('2026-01-05T08:00:00Z');
    const { sink, resend } = await openSink({ now: () => clock });
    sink.setFaults('re_test_x', { ratePerSec: 2 });

    const first = await resend.emails.send(email());
    expect(first.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '1', 'ratelimit-reset': '1' });
    expect((await resend.emails.send(email())).headers?.['ratelimit-remaining']).toBe('0');

    clock += 400;
    const limited = await resend.emails.send(email());
    expect(limited.error).toMatchObject({ statusCode: 429, name: 'rate_limit_exceeded' });
    expect(Number(limited.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(Number(limited.headers?.['retry-after']))).toBe(true);
    expect(limited.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '0' });
    expect(limited.headers?.['ratelimit-reset']).toBeDefined();

    // Another team is not throttled by this one.
    expect((await new Resend('re_other_team', { baseUrl: sink.url }).emails.send(email())).error).toBeNull();

    clock += 600;
    expect((await resend.emails.send(email())).error).toBeNull();
    expect(sink.messages({ apiKey: 're_test_x' })).toHaveLength(3);

    // The provider's own count of each key's requests: what a client cannot tell from its own tally.
    const tally = async (apiKey: string) => (await fetch(`${sink.url}/sink/requests?apiKey=${apiKey}`)).json();
    expect(await tally('re_test_x')).toEqual({ apiKey: 're_test_x', admitted: 3, refused: 1 });
    expect(await tally('re_other_team')).toEqual({ apiKey: 're_other_team', admitted: 1, refused: 0 });
    expect((await fetch(`${sink.url}/sink/requests`)).status).toBe(422);
    expect((await fetch(`${sink.url}/sink/requests?apiKey=re_test_x`, { method: 'POST' })).status).toBe(405);
  });

  it('fails the next send with an injected 500, then processes a retry with the same key', async () => {
    const { sink, resend } = await openSink();
    sink.setFaults('re_test_x', { failNext: { count: 1, status: 500 } });

    const failed = await resend.emails.send(email(), { idempotencyKey: 'alert_u1_x' });
    expect(failed.error).toMatchObject({ statusCode: 500, name: 'internal_server_error' });
    expect(sink.messages()).toEqual([]);

    const retried = await resend.emails.send(email(), { idempotencyKey: 'alert_u1_x' });
    expect(retried.error).toBeNull();
    expect(sink.messages()).toHaveLength(1);
    expect(sink.messages()[0].id).toBe(retried.data!.id);
  });

  it('uses the injected error name when one is given', async () => {
    const { sink, resend } = await openSink();
    sink.setFaults('re_test_x', { failNext: { count: 2, status: 503, name: 'application_error' } });
    expect((await resend.batch.send([email()])).error).toMatchObject({ statusCode: 503, name: 'application_error' });
    expect((await resend.emails.send(email())).error).toMatchObject({ statusCode: 503 });
    expect((await resend.emails.send(email())).error).toBeNull();
  });

  it('drops the response after accepting: the SDK sees a network error, the email is stored and its key kept', async () => {
    const { sink, resend } = await openSink();
    sink.setFaults('re_test_x', { dropAfterAccept: 1 });

    const dropped = await resend.emails.send(email(), { idempotencyKey: 'digest_u1_2026-01-05' });
    expect(dropped.data).toBeNull();
    expect(dropped.error).toMatchObject({ statusCode: null });
    expect(sink.messages()).toHaveLength(1);

    // The ambiguous outcome is resolved by retrying with the same key: same id, no duplicate.
    const retried = await resend.emails.send(email(), { idempotencyKey: 'digest_u1_2026-01-05' });
    expect(retried.data?.id).toBe(sink.messages()[0].id);
    expect(sink.messages()).toHaveLength(1);
  });

  it('delays answers by latencyMs', async () => {
    const { sink, resend } = await openSink();
    sink.setFaults('re_test_x', { latencyMs: 250 });
    const started = performance.now();
    expect((await resend.emails.send(email())).error).toBeNull();
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  });

  it('sets and clears faults over HTTP, validating them', async () => {
    const { sink, resend } = await openSink();
    const post = (body: unknown) => fetch(`${sink.url}/sink/faults`, { method: 'POST', body: JSON.stringify(body) });

    expect((await post({ apiKey: 're_test_x', failNext: { count: 1, status: 502 } })).status).toBe(200);
    expect((await resend.emails.send(email())).error).toMatchObject({ statusCode: 502 });

    expect((await post({ apiKey: 're_test_x', failNext: { count: 5, status: 503 } })).status).toBe(200);
    expect((await fetch(`${sink.url}/sink/faults?apiKey=re_test_x`, { method: 'DELETE' })).status).toBe(200);
    expect((await resend.emails.send(email())).error).toBeNull();

    expect((await post({ apiKey: 're_test_x', ratePerSec: -1 })).status).toBe(422);
    expect((await post({ apiKey: 're_test_x', bogus: true })).status).toBe(422);
    expect((await post({ failNext: { count: 1, status: 500 } })).status).toBe(422);
    expect(() => sink.setFaults('re_test_x', { failNext: { count: 1, status: 200 } })).toThrow(TypeError);
  });

  it('over the daily quota: every send and batch is refused with 429 daily_quota_exceeded until cleared, retry-after counting to 00:00 UTC, nothing stored, no key used', async () => {
    const clock = Date.parse('2026-11-30T18:00:00Z');
    const { sink, resend } = await openSink({ now: () => clock });
    sink.setFaults('re_test_x', { quotaExceeded: 'daily' });

    for (let i = 0; i < 3; i++) {
      const refused = await resend.emails.send(email(), { idempotencyKey: 'digest_k' });
      expect(refused.error).toMatchObject({
        statusCode: 429,
        name: 'daily_quota_exceeded',
        message: 'You have reached your daily email sending quota.',
      });
      expect(refused.headers?.['retry-after']).toBe(String(6 * 3600));
    }
    expect((await resend.batch.send([email(), email()], { idempotencyKey: 'batch_k' })).error).toMatchObject({
      statusCode: 429,
      name: 'daily_quota_exceeded',
    });
    expect(sink.messages()).toEqual([]);

    sink.setFaults('re_test_x', {});
    // The refused requests used no key: the same key now sends.
    expect((await resend.emails.send(email(), { idempotencyKey: 'digest_k' })).error).toBeNull();
    expect(sink.messages()).toHaveLength(1);
  });

  it('over the monthly quota: 429 monthly_quota_exceeded, retry-after counting to the first of next month; failNext can arm it too', async () => {
    const clock = Date.parse('2026-12-31T12:00:00Z');
    const { sink, resend } = await openSink({ now: () => clock });
    sink.setFaults('re_test_x', { quotaExceeded: 'monthly' });
    const refused = await resend.emails.send(email());
    expect(refused.error).toMatchObject({
      statusCode: 429,
      name: 'monthly_quota_exceeded',
      message: 'You have reached your monthly email sending quota.',
    });
    expect(refused.headers?.['retry-after']).toBe(String(12 * 3600));

    sink.setFaults('re_test_x', { failNext: { count: 1, status: 429, name: 'daily_quota_exceeded' } });
    const once = await resend.emails.send(email());
    expect(once.error).toMatchObject({ statusCode: 429, name: 'daily_quota_exceeded' });
    expect(once.headers?.['retry-after']).toBe(String(12 * 3600));
    expect((await resend.emails.send(email())).error).toBeNull();

    const post = (body: unknown) => fetch(`${sink.url}/sink/faults`, { method: 'POST', body: JSON.stringify(body) });
    expect((await post({ apiKey: 're_test_x', quotaExceeded: 'weekly' })).status).toBe(422);
    expect((await post({ apiKey: 're_test_x', quotaExceeded: 'daily' })).status).toBe(200);
    expect((await resend.emails.send(email())).error).toMatchObject({ name: 'daily_quota_exceeded' });
  });
});
