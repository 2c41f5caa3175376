import type { Firestore } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../store/collections';
import { FIRESTORE_LIMITS } from '../store/firestore-limits';
import { DEFAULT_MATCH_INDEX_SHARDS, isMatchIndexShardCount, MAX_MATCH_INDEX_SHARDS } from '../runtime/shard';

/**
 * How many documents the match index is spread over (its layout), and how many it needs.
 *
 * The count is a setting, MATCH_INDEX_SHARDS (a power of two from 16 to 4,096, so every cron
 * shard count that divides 16 divides it too and a cron shard reads only its own index shards),
 * but what writers and readers use is the layout the repair sweep has stored in
 * cursors/match-index-repair: `layout: "<K> shards"` (none stored = the default of 16), and while
 * a new count is being built, `building: "<K'> shards"`. One stored value, not each instance's
 * environment, because instances of two deployments run side by side while a new one rolls out:
 * were each to write where its own setting says, a subscriber's entry could land in a layout
 * nobody reads. While a layout is being built, writers write both (two map keys in their batch)
 * and runs keep reading the one in force, so a change of count never sends runs back to users/;
 * when the build's sweep completes, the new layout is in force and the old one is deleted
 * (repair-match-index.ts).
 *
 * Sizing: a shard must hold its share of subscribers at their worst, never their typical, size:
 * the longest uid (base64url of a 254-character address, 339 characters) as the map key, and an
 * entry at MAX_INLINE_ENTRY_BYTES (longer ones are stored as a pointer, null). That is
 * WORST_SUBSCRIBER_BYTES a subscriber, so half of 1 MiB (the room to spare every document keeps)
 * holds SHARD_CAPACITY of them; the hash spreads subscribers unevenly, so a layout is sized for its
 * mean plus five standard deviations (the fullest of 4,096 shards is about four above).
 */
export { DEFAULT_MATCH_INDEX_SHARDS, MAX_MATCH_INDEX_SHARDS };

/** Entries longer than this many UTF-8 bytes are stored as a pointer to users/ (null): bounds what a subscriber costs a shard. */
export const MAX_INLINE_ENTRY_BYTES = 300;

/** base64url of the longest address (254 characters): the longest map key a shard holds. */
export const MAX_UID_LENGTH = Math.ceil((254 * 4) / 3);

/** A map entry's size as Firestore counts it: the key and the string value, each its UTF-8 bytes + 1. */
export const WORST_SUBSCRIBER_BYTES = MAX_UID_LENGTH + 1 + MAX_INLINE_ENTRY_BYTES + 1;

/** Subscribers at their worst a shard holds within half of 1 MiB (the document's name and builtAt are a few dozen bytes). */
export const SHARD_CAPACITY = Math.floor((FIRESTORE_LIMITS.documentBytes * 0.5 - 1_024) / WORST_SUBSCRIBER_BYTES);

/** The most subscribers, at their worst, `shards` shards hold: mean + 5 standard deviations within SHARD_CAPACITY. */
export function matchIndexCapacity(shards: number): number {
  // m + 5·√m ≤ C  ⇔  √m ≤ (−5 + √(25 + 4C)) / 2
  const root = (-5 + Math.sqrt(25 + 4 * SHARD_CAPACITY)) / 2;
  return Math.floor(root * root) * shards;
}

/** The smallest layout that holds `subscribers` at their worst (at most MAX_MATCH_INDEX_SHARDS). */
export function matchIndexShardsFor(subscribers: number): number {
  let shards = DEFAULT_MATCH_INDEX_SHARDS;
  while (shards < MAX_MATCH_INDEX_SHARDS && matchIndexCapacity(shards) < subscribers) shards *= 2;
  return shards;
}

/** The repair sweep's cursor, which also holds the layout in force. */
export const MATCH_INDEX_REPAIR = 'match-index-repair';
export const repairStateRef = (db: Firestore) => db.collection(COLLECTIONS.cursors).doc(MATCH_INDEX_REPAIR);

export const layoutOf = (count: number) => `${count} shards`;

/** The shard count a stored layout names, or null when it names none this code knows. */
function parseLayout(layout: unknown): number | null {
  const count = typeof layout === 'string' ? Number(/^(\d+) shards$/.exec(layout)?.[1]) : NaN;
  return isMatchIndexShardCount(count) ? count : null;
}

/** The shard count a stored layout names; the default when none is stored (or it is not one this code knows). */
export const shardsOfLayout = (layout: unknown): number => parseLayout(layout) ?? DEFAULT_MATCH_INDEX_SHARDS;

/** The layout in force (runs read it) and the one being built, if any (writers write both). */
export type IndexLayout = { shards: number; building: number | null };

export function indexLayoutOf(state: { layout?: unknown; building?: unknown } | undefined | null): IndexLayout {
  const shards = shardsOfLayout(state?.layout);
  const building = parseLayout(state?.building);
  return { shards, building: building !== shards ? building : null };
}

/** The layouts a subscriber's entry is written to: the one in force first, then the one being built. */
export const layoutsWritten = (layout: IndexLayout): number[] => (layout.building ? [layout.shards, layout.building] : [layout.shards]);

/** The layouts writers write and runs read: one read of the sweep's cursor. */
export async function readIndexLayout(db: Firestore): Promise<IndexLayout> {
  return indexLayoutOf((await repairStateRef(db).get()).data());
}
