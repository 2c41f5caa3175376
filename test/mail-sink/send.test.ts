import { describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { email, openSink } from './sink-fixture';

describe('mail sink: sending', () => {
  it('stores a single send and returns a UUID id', async () => {
    const { sink, resend } = await openSink();
    const headers = { 'List-Unsubscribe': '<https://scout.test/u?t=1>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
    const result = await resend.emails.send({ ...email(), headers, replyTo: 'help@scout.test' });

    expect(result.error).toBeNull();
    expect(result.data?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const [stored] = sink.messages();
    expect(sink.messages()).toHaveLength(1);
    expect(stored).toMatchObject({
      id: result.data?.id,
      apiKey: 're_test_x',
      idempotencyKey: null,
      from: 'Scout <alerts@scout.test>',
      to: ['ada@example.com'],
      replyTo: ['help@scout.test'],
      subject: 'New jobs for you',
      html: '<p>3 new postings</p>',
      text: '3 new postings',
      headers,
      batch: false,
    });
    expect(new Date(stored.receivedAt).toISOString()).toBe(stored.receivedAt);
    expect(result.headers?.['ratelimit-limit']).toBeDefined();
    expect(result.headers?.['ratelimit-remaining']).toBeDefined();
    expect(result.headers?.['ratelimit-reset']).toBeDefined();
  });

  it("without bodies (the bench's sink) keeps and counts every envelope, and forgets only html and text", async () => {
    const { sink, resend } = await openSink({ keepBodies: false });
    const sent = await resend.emails.send(email());
    await resend.batch.send([email({ to: 'a@example.com' }), email({ to: 'b@example.com' })]);

    expect(sink.messages().map((m) => [m.to[0], m.subject, m.html, m.text])).toEqual([
      ['ada@example.com', 'New jobs for you', null, null],
      ['a@example.com', 'New jobs for you', null, null],
      ['b@example.com', 'New jobs for you', null, null],
    ]);
    const count = await fetch(`${sink.url}/sink/messages/count?apiKey=re_test_x`);
    expect(await count.json()).toEqual({ count: 3 });
    const fetched = await resend.emails.get(sent.data!.id);
    expect(fetched.data).toMatchObject({ id: sent.data!.id, subject: 'New jobs for you', html: null, text: null });
  });

  it('sends a batch of 3 through resend.batch.send', async () => {
    const { sink, resend } = await openSink();
    const result = await resend.batch.send([
      email({ to: 'a@example.com' }),
      email({ to: 'b@example.com' }),
      email({ to: 'c@example.com' }),
    ]);

    expect(result.error).toBeNull();
    expect(result.data?.data).toHaveLength(3);
    const stored = sink.messages();
    expect(stored.map((m) => m.to[0])).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(stored.map((m) => m.id)).toEqual(result.data?.data.map((d) => d.id));
    expect(stored.every((m) => m.batch)).toBe(true);
  });

  it('keeps the good emails of a permissive batch and reports the bad ones by index', async () => {
    const { sink, resend } = await openSink();
    const result = await resend.batch.send([email(), email({ to: 'not-an-address' }), email({ to: 'z@example.com' })], {
      batchValidation: 'permissive',
    });
    expect(result.data?.data).toHaveLength(2);
    expect(result.data?.errors).toEqual([{ index: 1, message: expect.stringContaining('Invalid `to` field') }]);
    expect(sink.messages()).toHaveLength(2);
  });

  it('rejects a strict batch with one bad email, or over 100 emails, and stores nothing', async () => {
    const { sink, resend } = await openSink();
    const oneBad = await resend.batch.send([email(), email({ subject: undefined })]);
    expect(oneBad.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    const tooMany = await resend.batch.send(Array.from({ length: 101 }, () => email()));
    expect(tooMany.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(sink.messages()).toEqual([]);
  });

  it('answers GET /emails/:id in Resend shape, only for the key that sent it', async () => {
    const { sink, resend } = await openSink();
    const sent = await resend.emails.send(email({ to: ['ada@example.com', 'Bob <bob@example.com>'] }));
    const got = await resend.emails.get(sent.data!.id);
    expect(got.data).toMatchObject({
      object: 'email',
      id: sent.data!.id,
      to: ['ada@example.com', 'Bob <bob@example.com>'],
      from: 'Scout <alerts@scout.test>',
      subject: 'New jobs for you',
      html: '<p>3 new postings</p>',
      text: '3 new postings',
      last_event: 'delivered',
    });
    expect(typeof got.data?.created_at).toBe('string');

    const otherTeam = new Resend('re_other_team', { baseUrl: sink.url });
    expect((await otherTeam.emails.get(sent.data!.id)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    expect((await resend.emails.get('8d1b1a9c-0000-4000-8000-000000000000')).error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });

  it('filters messages by recipient and by API key, oldest first', async () => {
    const { sink, resend } = await openSink();
    const other = new Resend('re_other_team', { baseUrl: sink.url });
    await resend.emails.send(email({ to: 'Ada <ADA@example.com>', subject: 'first' }));
    await other.emails.send(email({ to: 'bob@example.com' }));
    await resend.emails.send(email({ to: 'carl@example.com', bcc: 'ada@example.com', subject: 'second' }));

    expect(sink.messages({ to: 'ada@example.com' }).map((m) => m.subject)).toEqual(['first', 'second']);
    expect(sink.messages({ apiKey: 're_other_team' }).map((m) => m.to)).toEqual([['bob@example.com']]);
    expect(sink.messages({ to: 'bob@example.com', apiKey: 're_test_x' })).toEqual([]);
  });

  it('validates with 422 validation_error and stores nothing', async () => {
    const { sink, resend } = await openSink();
    const cases = [
      email({ from: undefined }),
      email({ to: undefined }),
      email({ to: [] }),
      email({ subject: undefined }),
      email({ html: undefined, text: undefined }),
      email({ to: Array.from({ length: 51 }, (_, i) => `u${i}@example.com`) }),
      email({ from: 'nobody' }),
    ];
    for (const payload of cases) {
      const result = await resend.emails.send(payload);
      expect(result.error, JSON.stringify(payload).slice(0, 80)).toMatchObject({ statusCode: 422, name: 'validation_error' });
      expect(result.error?.message).toBeTruthy();
    }
    expect((await resend.emails.send(email({ to: Array.from({ length: 50 }, (_, i) => `u${i}@example.com`) }))).error).toBeNull();
    expect(sink.messages()).toHaveLength(1);
  });
});
