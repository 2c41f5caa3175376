import { describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { email, openSink } from './sink-fixture';

describe('mail sink: idempotency keys', () => {
  it('replays the original answer for the same key and body, storing once', async () => {
    const { sink, resend } = await openSink();
    const first = await resend.emails.send(email(), { idempotencyKey: 'digest_u1_2026-01-05' });
    const again = await resend.emails.send(email(), { idempotencyKey: 'digest_u1_2026-01-05' });

    expect(first.error).toBeNull();
    expect(again).toMatchObject({ data: { id: first.data!.id }, error: null });
    expect(sink.messages()).toHaveLength(1);
    expect(sink.messages()[0].idempotencyKey).toBe('digest_u1_2026-01-05');
  });

  it('replays a batch too', async () => {
    const { sink, resend } = await openSink();
    const batch = [email({ to: 'a@example.com' }), email({ to: 'b@example.com' })];
    const first = await resend.batch.send(batch, { idempotencyKey: 'digests-2026-01-05' });
    const again = await resend.batch.send(batch, { idempotencyKey: 'digests-2026-01-05' });
    expect(again.data).toEqual(first.data);
    expect(sink.messages()).toHaveLength(2);
  });

  it('refuses the same key with a changed body: invalid_idempotent_request', async () => {
    const { sink, resend } = await openSink();
    await resend.emails.send(email(), { idempotencyKey: 'alert_u1_abc' });
    const changed = await resend.emails.send(email({ subject: 'New jobs for you (retry at 08:01)' }), { idempotencyKey: 'alert_u1_abc' });

    expect(changed.error).toMatchObject({ statusCode: 409, name: 'invalid_idempotent_request' });
    expect(sink.messages()).toHaveLength(1);
  });

  it('refuses a twin request while the first is in flight: concurrent_idempotent_requests', async () => {
    const { sink, resend } = await openSink();
    sink.setFaults('re_test_x', { latencyMs: 300 });
    const [a, b] = await Promise.all([
      resend.emails.send(email(), { idempotencyKey: 'alert_u1_twin' }),
      resend.emails.send(email(), { idempotencyKey: 'alert_u1_twin' }),
    ]);

    const names = [a, b].map((r) => r.error?.name ?? 'ok').sort();
    expect(names).toEqual(['concurrent_idempotent_requests', 'ok']);
    expect([a, b].find((r) => r.error)?.error?.statusCode).toBe(409);
    expect(sink.messages()).toHaveLength(1);

    // Once the first finished, the same key replays instead.
    const later = await resend.emails.send(email(), { idempotencyKey: 'alert_u1_twin' });
    expect(later.data?.id).toBe((a.data ?? b.data)!.id);
  });

  it('forgets a key after 24 hours of the sink clock', async () => {
    let clock = Date.parse('2026-01-05T08:00:00Z');
    const { sink, resend } = await openSink({ now: () => clock });
    const first = await resend.emails.send(email(), { idempotencyKey: 'k' });
    clock += 24 * 60 * 60 * 1000 - 1;
    expect((await resend.emails.send(email(), { idempotencyKey: 'k' })).data?.id).toBe(first.data!.id);
    clock += 1;
    const fresh = await resend.emails.send(email(), { idempotencyKey: 'k' });
    expect(fresh.data?.id).not.toBe(first.data!.id);
    expect(sink.messages().map((m) => m.receivedAt)).toEqual(['2026-01-05T08:00:00.000Z', '2026-01-06T08:00:00.000Z']);
  });

  it('scopes keys per API key', async () => {
    const { sink, resend } = await openSink();
    const otherTeam = new Resend('re_other_team', { baseUrl: sink.url });
    await resend.emails.send(email(), { idempotencyKey: 'shared' });
    const other = await otherTeam.emails.send(email({ subject: 'different' }), { idempotencyKey: 'shared' });
    expect(other.error).toBeNull();
    expect(sink.messages()).toHaveLength(2);
  });

  it('rejects keys longer than 256 characters without consuming anything', async () => {
    const { sink, resend } = await openSink();
    const tooLong = await resend.emails.send(email(), { idempotencyKey: 'k'.repeat(257) });
    expect(tooLong.error).toMatchObject({ statusCode: 400, name: 'invalid_idempotency_key' });
    expect((await resend.emails.send(email(), { idempotencyKey: 'k'.repeat(256) })).error).toBeNull();
    expect(sink.messages()).toHaveLength(1);
  });

  it('does not let a validation failure consume the key', async () => {
    const { sink, resend } = await openSink();
    const bad = await resend.emails.send(email({ to: 'nobody' }), { idempotencyKey: 'fix-me' });
    expect(bad.error?.statusCode).toBe(422);
    expect((await resend.emails.send(email(), { idempotencyKey: 'fix-me' })).error).toBeNull();
    expect(sink.messages()).toHaveLength(1);
  });
});
