import type { Timestamp } from 'firebase-admin/firestore';
import type { Delivery } from './delivery';

/** A queued delivery as read, with the version a close must be guarded by. */
export type DueItem = { id: string; delivery: Delivery; updateTime: Timestamp };
/** One subscriber's queued deliveries due by the flush's clock, best first. */
export type Due = { uid: string; items: DueItem[] };

/** A queued delivery a digest claimed now may carry. */
export const isDueAt = (d: Delivery, now: Date) => d.status === 'queued' && !!d.digestDueAt && d.digestDueAt.getTime() <= now.getTime();

/** A subscriber's due items in the order a digest lists them before any verdict: by score, then by id. */
export const bestFirst = (a: DueItem, b: DueItem) => b.delivery.score - a.delivery.score || a.id.localeCompare(b.id);
