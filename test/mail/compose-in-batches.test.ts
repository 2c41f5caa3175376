import { describe, expect, it } from 'vitest';
import { COMPOSE_CONCURRENCY, composeInBatches, MAX_COMPOSE_BATCH_BYTES, COMPOSE_BATCH_BYTES, type ComposedBatch } from '../../lib/mail/compose-in-batches';
import { emailBytes, MAX_EMAIL_BYTES } from '../../lib/mail/email-budget';
import { MAX_BATCH_BYTES } from '../../lib/outbox/dispatch-stats';
import type { EmailPayload } from '../../lib/mail/email-payload';

const email = (bytes: number): EmailPayload => ({
  from: 'a@scout.test',
  to: 'b@scout.test',
  subject: '',
  html: 'x'.repeat(bytes),
  text: '',
  headers: {},
});

async function collect<R>(gen: AsyncGenerator<ComposedBatch<R>>) {
  const waves: ComposedBatch<R>[] = [];
  for await (const wave of gen) waves.push(wave);
  return waves;
}

describe('a slice holds one wave of composed emails, not all of them', () => {
  it('waves end once their bodies reach the budget, so no wave holds more than the budget and one round of renders', async () => {
    const sizes = Array.from({ length: 1_000 }, (_, i) => 20_000 + (i % 7) * 10_000);
    const waves = await collect(
      composeInBatches(
        sizes,
        async (bytes) => email(bytes),
        (payload) => payload,
        400_000,
      ),
    );
    expect(waves.length).toBeGreaterThan(10);
    for (const wave of waves) {
      const bytes = wave.items.reduce((n, { result }) => n + emailBytes(result), 0);
      expect(bytes).toBeLessThan(400_000 + COMPOSE_CONCURRENCY * 80_000);
    }
    // Only the wave after which nothing is left says so: a caller holds nothing back from it.
    expect(waves.map((w) => w.last)).toEqual([...Array(waves.length - 1).fill(false), true]);
  });

  it('every item is composed once, in order, with its index, whatever the waves', async () => {
    const items = Array.from({ length: 101 }, (_, i) => `item-${i}`);
    const composed: string[] = [];
    const waves = await collect(
      composeInBatches(
        items,
        async (item, index) => (composed.push(item), { item, index, payload: email(5_000) }),
        (r) => r.payload,
        20_000,
      ),
    );
    const flat = waves.flatMap((w) => w.items);
    expect(flat.map((w) => w.index)).toEqual(items.map((_, i) => i));
    expect(flat.map((w) => w.result.item)).toEqual(items);
    expect(flat.every((w) => w.result.index === w.index)).toBe(true);
    expect(composed.sort()).toEqual([...items].sort());
  });

  it('results without an email (nothing to send) weigh nothing and still come back', async () => {
    const waves = await collect(
      composeInBatches(
        [1, 2, 3],
        async (n) => n,
        () => null,
      ),
    );
    expect(waves).toEqual([
      {
        items: [
          { index: 0, result: 1 },
          { index: 1, result: 2 },
          { index: 2, result: 3 },
        ],
        last: true,
      },
    ]);
  });

  it('a wave still holds more than two full provider batches, so waves never make batches smaller', () => {
    expect(COMPOSE_BATCH_BYTES).toBeGreaterThanOrEqual(2 * MAX_BATCH_BYTES);
    // And its bound stays small beside a serverless function's memory, two slices in flight.
    expect(2 * MAX_COMPOSE_BATCH_BYTES).toBeLessThan(32 * 1024 * 1024);
    expect(MAX_COMPOSE_BATCH_BYTES).toBe(COMPOSE_BATCH_BYTES + COMPOSE_CONCURRENCY * MAX_EMAIL_BYTES);
  });
});
