import { describe, expect, it } from 'vitest';
import {
  COMPOSE_CONCURRENCY,
  composeInBatches,
  MAX_COMPOSE_BATCH_BYTES,
  COMPOSE_BATCH_BYTES,
  type ComposedBatch,
} from '../../lib/mail/compose-in-batches';
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
  const batches: ComposedBatch<R>[] = [];
  for await (const batch of gen) batches.push(batch);
  return batches;
}

describe('a subscriber batch holds one batch of composed emails, not all of them', () => {
  it('compose batches end once their bodies reach the budget, so none holds more than the budget and one step of renders', async () => {
    const sizes = Array.from({ length: 1_000 }, (_, i) => 20_000 + (i % 7) * 10_000);
    const batches = await collect(
      composeInBatches(
        sizes,
        async (bytes) => email(bytes),
        (payload) => payload,
        400_000,
      ),
    );
    expect(batches.length).toBeGreaterThan(10);
    for (const batch of batches) {
      const bytes = batch.items.reduce((n, { result }) => n + emailBytes(result), 0);
      expect(bytes).toBeLessThan(400_000 + COMPOSE_CONCURRENCY * 80_000);
    }
    // Only the batch after which nothing is left says so: a caller holds nothing back from it.
    expect(batches.map((w) => w.last)).toEqual([...Array(batches.length - 1).fill(false), true]);
  });

  it('every item is composed once, in order, with its index, whatever the batches', async () => {
    const items = Array.from({ length: 101 }, (_, i) => `item-${i}`);
    const composed: string[] = [];
    const batches = await collect(
      composeInBatches(
        items,
        async (item, index) => (composed.push(item), { item, index, payload: email(5_000) }),
        (r) => r.payload,
        20_000,
      ),
    );
    const flat = batches.flatMap((w) => w.items);
    expect(flat.map((w) => w.index)).toEqual(items.map((_, i) => i));
    expect(flat.map((w) => w.result.item)).toEqual(items);
    expect(flat.every((w) => w.result.index === w.index)).toBe(true);
    expect(composed.sort()).toEqual([...items].sort());
  });

  it('results without an email (nothing to send) weigh nothing and still come back', async () => {
    const batches = await collect(
      composeInBatches(
        [1, 2, 3],
        async (n) => n,
        () => null,
      ),
    );
    expect(batches).toEqual([
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

  it('a compose batch still holds more than two full provider batches, so compose batches never make provider batches smaller', () => {
    expect(COMPOSE_BATCH_BYTES).toBeGreaterThanOrEqual(2 * MAX_BATCH_BYTES);
    // And its bound stays small beside a serverless function's memory, two subscriber batches in flight.
    expect(2 * MAX_COMPOSE_BATCH_BYTES).toBeLessThan(32 * 1024 * 1024);
    expect(MAX_COMPOSE_BATCH_BYTES).toBe(COMPOSE_BATCH_BYTES + COMPOSE_CONCURRENCY * MAX_EMAIL_BYTES);
  });
});
