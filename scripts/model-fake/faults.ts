import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { FaultMode, ModelFault } from './types';

const count = z.number().int().positive().optional();

/** The longest a request may be held: a slow fault, or the fake's fixed delay (ModelFakeOptions.delayMs). */
export const MAX_DELAY_MS = 600_000;

const faultSchema = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('slow'), ms: z.number().int().nonnegative().max(MAX_DELAY_MS), count }),
  z.strictObject({ mode: z.literal('500'), count }),
  z.strictObject({ mode: z.literal('429'), retryAfterSeconds: z.number().int().nonnegative().max(86_400), count }),
  z.strictObject({ mode: z.literal('malformed'), count }),
  z.strictObject({ mode: z.literal('refusal'), count }),
  z.strictObject({ mode: z.literal('drop'), count }),
  z.strictObject({ mode: z.literal('obedient'), count }),
]);

export const faultListSchema = z.array(faultSchema).max(20);

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

export function parseFaults(input: unknown): Checked<ModelFault[]> {
  const parsed = faultListSchema.safeParse(input);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: z.prettifyError(parsed.error) };
}

/**
 * The faults one request meets: a delay first, then at most one way of failing; `obedient` is not
 * a failure but a way of answering, so it stacks with a delay like `slow` does.
 */
export type FaultPlan = { delayMs: number; obedient: boolean; failure: Exclude<ModelFault, { mode: 'slow' | 'obedient' }> | null };

/** Faults are per API key so parallel tests, each with its own key, cannot disturb one another. */
export function createFaultBook() {
  const book = new Map<string, ModelFault[]>();

  function set(apiKey: string, faults: ModelFault[]) {
    const checked = parseFaults(faults);
    if (!checked.ok) throw new TypeError(`Invalid model-fake faults: ${checked.message}`);
    if (checked.value.length === 0) book.delete(apiKey);
    else book.set(apiKey, structuredClone(checked.value));
  }

  /** Spends one use of every slow fault and of the first failing one, in the order they were set. */
  function take(apiKey: string): FaultPlan {
    const faults = book.get(apiKey) ?? [];
    const plan: FaultPlan = { delayMs: 0, obedient: false, failure: null };
    const spent = new Set<ModelFault>();
    for (const fault of faults) {
      if (fault.mode === 'slow') plan.delayMs += fault.ms;
      else if (fault.mode === 'obedient') plan.obedient = true;
      else if (plan.failure) continue;
      else plan.failure = fault;
      spent.add(fault);
    }
    const left = faults.filter((fault) => {
      if (!spent.has(fault) || fault.count === undefined) return true;
      fault.count -= 1;
      return fault.count > 0;
    });
    if (left.length > 0) book.set(apiKey, left);
    else book.delete(apiKey);
    return plan;
  }

  return {
    set,
    take,
    get: (apiKey: string): ModelFault[] => structuredClone(book.get(apiKey) ?? []),
    clear: (apiKey?: string) => (apiKey === undefined ? book.clear() : book.delete(apiKey)),
  };
}

export type FaultBook = ReturnType<typeof createFaultBook>;

/** Resolves after `ms`; rejects when the fake shuts down so no timer outlives it. */
export async function delay(ms: number, signal: AbortSignal) {
  if (ms > 0) await sleep(ms, undefined, { signal });
}

export const modeOf = (plan: FaultPlan): FaultMode | null =>
  plan.failure?.mode ?? (plan.delayMs > 0 ? 'slow' : plan.obedient ? 'obedient' : null);
