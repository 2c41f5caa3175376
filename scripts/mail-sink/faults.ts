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
  quotaExceeded: z.enum(['daily', 'monthly']).optional(),
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

/** Resend's error names for a team over its email quota (a 429, told apart from a rate limit only by its name). */
export const QUOTA_ERRORS = {
  daily: { name: 'daily_quota_exceeded', message: 'You have reached your daily email sending quota.' },
  monthly: { name: 'monthly_quota_exceeded', message: 'You have reached your monthly email sending quota.' },
} as const;

/** When the sink's quota would reset: the next 00:00 UTC, or the first of next month. */
export function quotaResetAt(period: 'daily' | 'monthly', now: number): number {
  const d = new Date(now);
  return period === 'daily'
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
    : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * Resend's docs do not say whether a quota 429 carries `retry-after`. The sink sends one counting
 * down to the reset (hours, or days): the worst case for a client that would wait it out.
 */
function quotaFailure(period: 'daily' | 'monthly', now: number): InjectedFailure {
  const seconds = Math.max(1, Math.ceil((quotaResetAt(period, now) - now) / 1000));
  return { status: 429, ...QUOTA_ERRORS[period], headers: { 'retry-after': String(seconds) } };
}

const quotaPeriodOf = (name: string) => (Object.keys(QUOTA_ERRORS) as ('daily' | 'monthly')[]).find((p) => QUOTA_ERRORS[p].name === name);

/** Faults are per API key so parallel tests, each with its own key, cannot disturb one another. */
export function createFaultBook(now: () => number = Date.now) {
  const book = new Map<string, SinkFaults>();

  function set(apiKey: string, faults: SinkFaults) {
    const checked = parseFaults(faults);
    if (!checked.ok) throw new TypeError(`Invalid mail-sink faults: ${checked.message}`);
    book.set(apiKey, structuredClone(checked.value));
  }

  /** A quota refusal, which lasts until cleared; otherwise consumes one injected failure, if any is armed for this key. */
  function takeFailure(apiKey: string): InjectedFailure | null {
    const quota = book.get(apiKey)?.quotaExceeded;
    if (quota) return quotaFailure(quota, now());
    const failNext = book.get(apiKey)?.failNext;
    if (!failNext || failNext.count <= 0) return null;
    failNext.count -= 1;
    const name = failNext.name ?? defaultName(failNext.status);
    const period = failNext.status === 429 ? quotaPeriodOf(name) : undefined;
    if (period) return quotaFailure(period, now());
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
