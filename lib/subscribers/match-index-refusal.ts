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

/** A write refused by a document limit (or anything else the store calls an invalid argument: tried again without the entry, then thrown). */
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
  const ref = matchIndexShardRef(db, input.k, input.shards);
  try {
    await ref.set({ builtAt: FieldValue.delete(), fullAt: FieldValue.serverTimestamp() }, { merge: true });
  } catch (error) {
    log('match_index_shard_mark_failed', { shard, error: String((error as Error)?.message ?? error) });
    // A shard that had no `builtAt` to trade for `fullAt` grows by it; taking `builtAt` alone only shrinks it.
    await ref.update({ builtAt: FieldValue.delete() }).catch(() => undefined);
  }
}

/** What a subscriber's write may do with their index entry (the layouts to write it to), and whether it did. */
export type IndexWrite = { layouts: number[]; written: boolean };

/**
 * Runs a subscriber's write (a batch or a transaction) with their index entry in it, in every
 * layout written (match-index-layout.ts). When the store refuses it and the entry was part of it,
 * it runs again with the entry in each layout alone (the one being built first), then in none, so
 * the entry lands wherever it fits: documents are sized apart, so the attempt that succeeds tells
 * which layouts refused. `write` must be safe to repeat (a guarded update or a transaction is: a
 * refused one wrote nothing). The shard of each layout left out is marked. The subscriber's document
 * lands either way; their entry is left for the repair sweep, and until a sweep vouches for the
 * shard again runs read users/ (or, for a layout being built, it is not vouched for).
 */
export async function writeWithEntryOrWithout<R>(
  db: Firestore,
  input: { uid: string; layouts: number[]; log?: Logger },
  write: (index: IndexWrite) => Promise<R>,
): Promise<R> {
  const alone = input.layouts.length > 1 ? [...input.layouts].reverse().map((layout) => [layout]) : [];
  let refusal: unknown = null;
  for (const layouts of [input.layouts, ...alone, []]) {
    const index: IndexWrite = { layouts, written: false };
    try {
      const result = await write(index);
      for (const shards of input.layouts.filter((layout) => !layouts.includes(layout)))
        await markShardRefused(db, { k: matchIndexShardOf(input.uid, shards), shards, by: 'write', error: refusal, log: input.log });
      return result;
    } catch (error) {
      if (!index.written || !isRefusedByLimits(error)) throw error;
      refusal = error;
    }
  }
  throw new Error('unreachable: the attempt without the entry either lands or throws');
}
