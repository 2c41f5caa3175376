import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { SinkFaults } from './types';
import type { Checked } from './validate';

const faultsSchema = z.strictObject({
  ratePerSec: z.number().int().positive().optional(),
  failNext: z
    .strictObject({
      count: z.number().int().nonnegative(),
      status: z.number().int().min(400).max(599),
      name: z.string().min(1).optional(),
    })
    .optional(),
  latencyMs: z.number().int().nonnegative().max(600_000).optional(),
  dropAfterAccept: z.number().int().nonnegative().optional(),
});

export function parseFaults(input: unknown): Checked<SinkFaults> {
  const parsed = faultsSchema.safeParse(input);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: z.prettifyError(parsed.error) };
}

export type InjectedFailure = { status: number; name: string; message: string; headers: Record<string, string> };

function defaultName(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'internal_server_error';
  return 'application_error';
}

/** Faults are per API key so parallel tests, each with its own key, cannot disturb one another. */
export function createFaultBook() {
  const book = new Map<string, SinkFaults>();

  function set(apiKey: string, faults: SinkFaults) {
    const checked = parseFaults(faults);
    if (!checked.ok) throw new TypeError(`Invalid mail-sink faults: ${checked.message}`);
    book.set(apiKey, structuredClone(checked.value));
  }

  /** Consumes one injected failure, if any is armed for this key. */
  function takeFailure(apiKey: string): InjectedFailure | null {
    const failNext = book.get(apiKey)?.failNext;
    if (!failNext || failNext.count <= 0) return null;
    failNext.count -= 1;
    const name = failNext.name ?? defaultName(failNext.status);
    return {
      status: failNext.status,
      name,
      message: `Injected failure (${name}) from the mail sink.`,
      headers: failNext.status === 429 ? { 'retry-after': '1' } : {},
    };
  }

  function takeDrop(apiKey: string): boolean {
    const faults = book.get(apiKey);
    if (!faults?.dropAfterAccept) return false;
    faults.dropAfterAccept -= 1;
    return true;
  }

  return {
    set,
    get: (apiKey: string): SinkFaults => structuredClone(book.get(apiKey) ?? {}),
    clear: (apiKey?: string) => (apiKey === undefined ? book.clear() : book.delete(apiKey)),
    ratePerSec: (apiKey: string) => book.get(apiKey)?.ratePerSec,
    takeFailure,
    takeDrop,
    /** Resolves after the key's latency; rejects when the sink shuts down so no timer outlives it. */
    delay: async (apiKey: string, signal: AbortSignal) => {
      const ms = book.get(apiKey)?.latencyMs ?? 0;
      if (ms > 0) await sleep(ms, undefined, { signal });
    },
  };
}

export type FaultBook = ReturnType<typeof createFaultBook>;
