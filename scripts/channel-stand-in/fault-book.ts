import { z } from 'zod';
import { FAULT_KINDS, STAND_IN_PLATFORMS, type FaultInput, type FaultKind, type StandInPlatform } from './types';

const faultSchema = z
  .strictObject({
    destination: z.string().min(1),
    fault: z.enum(FAULT_KINDS),
    platform: z.enum(STAND_IN_PLATFORMS).optional(),
    times: z.number().int().positive().optional(),
    retryAfterSeconds: z.number().positive().max(86_400).optional(),
    status: z.number().int().optional(),
  })
  .refine((f) => f.status === undefined || f.fault === 'server-error' || f.fault === 'gone', {
    error: '`status` applies to server-error and gone only',
  })
  .refine((f) => f.fault !== 'server-error' || f.status === undefined || [500, 502, 503].includes(f.status), {
    error: 'server-error status must be 500, 502 or 503',
  })
  .refine((f) => f.fault !== 'gone' || f.status === undefined || [404, 410].includes(f.status), {
    error: 'gone status must be 404 or 410 (Slack: no_service or channel_is_archived)',
  });

export type ParsedFault = { ok: true; value: FaultInput } | { ok: false; message: string };

export function parseFault(input: unknown): ParsedFault {
  const parsed = faultSchema.safeParse(input);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: z.prettifyError(parsed.error) };
}

/** A fault taken for one request: what the platform answers instead of taking the message. */
export type ArmedFault = { kind: FaultKind; retryAfterSeconds: number; status: number | null };

type Entry = FaultInput & { remaining: number };

/**
 * Faults per destination key, each applying to its next `times` requests, in the order injected.
 * A destination's own faults come before the '*' ones, so a test can break one destination while
 * a blanket fault covers the rest.
 */
export function createFaultBook() {
  const book = new Map<string, Entry[]>();

  function inject(input: FaultInput) {
    const checked = parseFault(input);
    if (!checked.ok) throw new TypeError(`Invalid stand-in fault: ${checked.message}`);
    const fault = checked.value;
    const remaining = fault.times ?? (fault.fault === 'gone' ? Number.POSITIVE_INFINITY : 1);
    const entries = book.get(fault.destination) ?? [];
    entries.push({ ...fault, remaining });
    book.set(fault.destination, entries);
  }

  function takeFrom(key: string, platform: StandInPlatform): ArmedFault | null {
    const entries = book.get(key);
    const entry = entries?.find((e) => e.remaining > 0 && (e.platform === undefined || e.platform === platform));
    if (!entry) return null;
    entry.remaining -= 1;
    if (entry.remaining <= 0) entries!.splice(entries!.indexOf(entry), 1);
    return { kind: entry.fault, retryAfterSeconds: entry.retryAfterSeconds ?? 1, status: entry.status ?? null };
  }

  return {
    inject,
    /** Consumes one application of the first fault armed for this destination, if any. */
    take: (destination: string, platform: StandInPlatform): ArmedFault | null => takeFrom(destination, platform) ?? takeFrom('*', platform),
    clear: (destination?: string) => (destination === undefined ? book.clear() : book.delete(destination)),
    list: () =>
      [...book.values()].flat().map(({ remaining, ...fault }) => ({ ...fault, remaining: Number.isFinite(remaining) ? remaining : null })),
  };
}

export type FaultBook = ReturnType<typeof createFaultBook>;
