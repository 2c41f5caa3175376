import { FieldValue, type Firestore } from 'firebase-admin/firestore';
import { jsonLogger, type Logger } from '../runtime/logger';
import { matchIndexShardId, matchIndexShardOf, matchIndexShardRef } from './match-index';

/**
 * When a match index shard is refused a write: production refuses a document past 1 MiB or
 * 40,000 index entries with INVALID_ARGUMENT (the emulator does too, for the size), and a shard
 * gets there when the layout has too few shards for the subscribers (match-index-layout.ts sizes
 * it). The index is a cache, the subscriber's own write is not: a subscriber's confirmation or
 * save never fails because of their shard, and the repair sweep never stops at one.
 */
const INVALID_ARGUMENT = 3;

/** A write refused by a document limit (or anything else the store calls an invalid argument: retried once without the index, then thrown). */
export const isRefusedByLimits = (error: unknown) => (error as { code?: unknown } | null)?.code === INVALID_ARGUMENT;

/**
 * Marks a shard that refused an entry, in one write of its own: `builtAt` goes, so runs read
 * users/ (right, if costly) instead of an index missing someone, and `fullAt` says when, for
 * `scout status`. Replacing `builtAt` with `fullAt` (names of one length, both timestamps) adds
 * nothing to a shard that was built, so a full one takes it; if even that is refused, `builtAt`
 * alone is taken, and the log line and the sweep's own record (it will find the entry drifted and
 * be refused too) remain.
 */
export async function markShardRefused(
  db: Firestore,
  input: { k: number; shards: number; by: 'write' | 'sweep'; error: unknown; log?: Logger },
): Promise<void> {
  const log = input.log ?? jsonLogger;
  const shard = matchIndexShardId(input.k, input.shards);
  log('match_index_shard_refused', { shard, by: input.by, error: String((input.error as Error)?.message ?? input.error) });
  try {
    await matchIndexShardRef(db, input.k, input.shards).set(
      { builtAt: FieldValue.delete(), fullAt: FieldValue.serverTimestamp() },
      { merge: true },
    );
  } catch (error) {
    log('match_index_shard_mark_failed', { shard, error: String((error as Error)?.message ?? error) });
  }
}

/** What a subscriber's write did with their index entry: whether it may include it, and whether it did. */
export type IndexWrite = { enabled: boolean; written: boolean };

/**
 * Runs a subscriber's write (a batch or a transaction) with their index entry in it; when the
 * store refuses it and the entry was part of it, runs it again without the entry (it is written
 * from scratch: `write` must be safe to repeat, as a guarded update or a transaction is) and marks
 * the shard. The subscriber's document lands either way; their entry is left for the repair sweep,
 * and until a sweep vouches for the shard again runs read users/.
 */
export async function writeWithEntryOrWithout<R>(
  db: Firestore,
  input: { uid: string; shards: number; log?: Logger },
  write: (index: IndexWrite) => Promise<R>,
): Promise<R> {
  const index: IndexWrite = { enabled: true, written: false };
  try {
    return await write(index);
  } catch (error) {
    if (!index.written || !isRefusedByLimits(error)) throw error;
    const result = await write({ enabled: false, written: false });
    await markShardRefused(db, { k: matchIndexShardOf(input.uid, input.shards), shards: input.shards, by: 'write', error, log: input.log });
    return result;
  }
}
