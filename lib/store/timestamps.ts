import { Timestamp } from 'firebase-admin/firestore';

/** Converters store Dates as Timestamps; these keep the two directions in one place. */
export const toTimestamp = (date: Date | null | undefined) => (date ? Timestamp.fromDate(date) : null);
export const toDate = (value: unknown): Date | null => (value instanceof Timestamp ? value.toDate() : null);
/**
 * A row as its converter wrote it, each Date a Timestamp: how a converter reads back its own
 * collection, which only Scout writes. A field added later may still be missing from an older
 * document; the readers default those.
 */
export type Stored<T> = { [K in keyof T]: Date extends T[K] ? Exclude<T[K], Date> | Timestamp : T[K] };

export const DAY_MS = 86_400_000;
export const addDays = (date: Date, days: number) => new Date(date.getTime() + days * DAY_MS);
/** The UTC calendar day of an instant, as used in digest keys: 2026-11-30. */
export const utcDay = (date: Date) => date.toISOString().slice(0, 10);
