import { emailBytes, MAX_EMAIL_BYTES } from './email-budget';
import type { EmailPayload } from './email-payload';

/**
 * The bodies one batch of composed emails holds at most (UTF-8 bytes; V8 may hold a body with one
 * character past Latin-1 at twice that). A subscriber batch plans a thousand subscribers from one
 * pass of reads, but its emails are composed, written and handed to the sender a compose batch at a
 * time, so what it holds in memory is one compose batch of bodies, not a thousand of them: at 20
 * items an email weighs about 50 KB as a JS string, and a thousand of them from each of two
 * subscriber batches in flight ran a 320 MB heap out (docs/performance.md, J = 2,000). 8 MB still
 * holds more than two provider batches (MAX_BATCH_BYTES) of the heaviest emails, so a compose batch
 * never makes a provider batch smaller than it would be.
 */
export const COMPOSE_BATCH_BYTES = 8_000_000;

/** Emails composed at once within a compose batch: rendering is CPU, so a few at a time is as fast as all. */
export const COMPOSE_CONCURRENCY = 16;

/** What one item composed to, with its place among the items. */
export type Composed<R> = { index: number; result: R };
/** A batch of composed items; `last` when no item is left to compose after it. */
export type ComposedBatch<R> = { items: Composed<R>[]; last: boolean };

/**
 * Composes `items` in order, COMPOSE_CONCURRENCY at a time, and yields them in batches: each batch
 * ends once its payloads weigh `maxBytes` or more, so a batch holds at most `maxBytes` plus one
 * step of the heaviest emails. The caller writes each batch before asking for the next; the batch's
 * bodies are then garbage once the sender has them. (A caller may carry the last, unfilled provider
 * batch of a compose batch into the next one, so its requests stay full: one batch more, MAX_BATCH_BYTES.)
 */
export async function* composeInBatches<T, R>(
  items: T[],
  compose: (item: T, index: number) => Promise<R>,
  payloadOf: (result: R) => EmailPayload | null,
  maxBytes = COMPOSE_BATCH_BYTES,
): AsyncGenerator<ComposedBatch<R>> {
  let composed: Composed<R>[] = [];
  let bytes = 0;
  for (let start = 0; start < items.length; start += COMPOSE_CONCURRENCY) {
    const step = items.slice(start, start + COMPOSE_CONCURRENCY);
    const results = await Promise.all(step.map((item, i) => compose(item, start + i)));
    results.forEach((result, i) => {
      const payload = payloadOf(result);
      bytes += payload ? emailBytes(payload) : 0;
      composed.push({ index: start + i, result });
    });
    const last = start + COMPOSE_CONCURRENCY >= items.length;
    if (bytes >= maxBytes || last) {
      yield { items: composed, last };
      composed = [];
      bytes = 0;
    }
  }
}

/** The most a compose batch can hold: its budget, and one more step of the heaviest emails. */
export const MAX_COMPOSE_BATCH_BYTES = COMPOSE_BATCH_BYTES + COMPOSE_CONCURRENCY * MAX_EMAIL_BYTES;
