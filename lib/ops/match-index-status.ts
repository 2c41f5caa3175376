import type { Firestore } from 'firebase-admin/firestore';
import { allIndexShards, MATCH_INDEX_WARN_SHARE, matchIndexShardId, readIndexShards, shardFullness } from '../subscribers/match-index';
import { MAX_MATCH_INDEX_SHARDS, matchIndexCapacity, matchIndexShardsFor, indexLayoutOf } from '../subscribers/match-index-layout';
import { readRepairState, type RepairState } from '../subscribers/repair-match-index';
import { subscribersCollection } from '../subscribers/subscriber';

/**
 * The match index as an operator checks it: is it built (runs read it, not users/), does it hold
 * one entry per active subscriber (drift: the difference, counted live — the index's entries
 * against a count() of active users/), how full its fullest shard is, and what the last repair
 * sweep found, which shards refused an entry (full: runs read users/ until a larger layout is
 * built), and the layout the active subscribers call for. One cursor read (the layout and the
 * sweep), K shard reads, one count() (a read per 1,000 subscribers).
 */
export type MatchIndexStatus = {
  shards: number;
  /** The shard count being built (MATCH_INDEX_SHARDS changed), if any: runs read `shards` until it is done. */
  building: number | null;
  /** The layout the active subscribers call for at their worst (match-index-layout.ts). */
  shardsCalledFor: number;
  /** Shards that refused an entry, with when (`fullAt`). */
  full: { shard: string; at: Date }[];
  built: boolean;
  entries: number;
  activeSubscribers: number;
  drift: number;
  /** The fullest shard's size as a share of the 1 MiB a document may hold. */
  fullest: number;
  repair: RepairState | null;
};

export async function readMatchIndexStatus(db: Firestore): Promise<MatchIndexStatus> {
  // The sweep's cursor holds the layout too: one read for both.
  const repair = await readRepairState(db);
  const { shards: count, building } = indexLayoutOf(repair);
  const [shards, active] = await Promise.all([
    readIndexShards(db, allIndexShards(count), count),
    subscribersCollection(db).where('status', '==', 'active').count().get(),
  ]);
  const entries = shards.reduce((n, s) => n + s.profiles.size, 0);
  const activeSubscribers = active.data().count;
  return {
    shards: count,
    building,
    shardsCalledFor: matchIndexShardsFor(activeSubscribers),
    full: shards.flatMap((s) => (s.fullAt ? [{ shard: matchIndexShardId(s.k, count), at: s.fullAt }] : [])),
    built: shards.every((s) => s.builtAt !== null),
    entries,
    activeSubscribers,
    drift: Math.abs(entries - activeSubscribers),
    fullest: Math.max(0, ...shards.map(shardFullness)),
    repair,
  };
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

/** The lines `scout status` prints. */
export function matchIndexText(s: MatchIndexStatus): string[] {
  const lines = [
    s.built
      ? `match index: ${s.entries} entries for ${s.activeSubscribers} active subscribers (drift ${s.drift}${s.drift > 0 ? ': the repair sweep fixes it within a day' : ''}), ${s.shards} shards, fullest at ${percent(s.fullest)} of 1 MiB`
      : `match index: not built yet (${s.entries} of ${s.activeSubscribers} active subscribers so far): runs read users/ until a repair sweep completes`,
  ];
  const raise = s.building
    ? `${s.building} shards are being built`
    : `set MATCH_INDEX_SHARDS=${Math.min(Math.max(s.shardsCalledFor, s.shards * 2), MAX_MATCH_INDEX_SHARDS)} (the next sweep rebuilds the index)`;
  if (s.full.length > 0)
    lines.push(
      `match index: ${s.full.length} shard(s) refused an entry, first ${s.full[0].shard} at ${s.full[0].at.toISOString()}: runs read users/ until a larger layout is built: ${raise}`,
    );
  if (s.fullest > MATCH_INDEX_WARN_SHARE) lines.push(`match index: a shard is past ${percent(MATCH_INDEX_WARN_SHARE)} of 1 MiB: ${raise}`);
  else if (s.shardsCalledFor > s.shards)
    lines.push(
      `match index: ${s.activeSubscribers} active subscribers are more than ${s.shards} shards hold at their worst (${matchIndexCapacity(s.shards)}): ${raise}`,
    );
  const { repair } = s;
  if (s.building)
    lines.push(
      `match index: building ${s.building} shards (MATCH_INDEX_SHARDS changed)${repair?.sweep ? `, ${repair.sweep.checked} subscribers so far` : ''}; runs read the ${s.shards} in force until it is done`,
    );
  if (repair?.sweep)
    lines.push(
      `match index: repair sweep in progress since ${repair.sweep.startedAt.toISOString()}: ${repair.sweep.checked} checked, ${repair.sweep.drift} drifted, ${repair.sweep.fixed} fixed${repair.sweep.refused > 0 ? `, ${repair.sweep.refused} refused by a full shard` : ''}`,
    );
  if (repair?.lastSweep)
    lines.push(
      `match index: last repair sweep finished ${repair.lastSweep.finishedAt.toISOString()}: ${repair.lastSweep.checked} checked, ${repair.lastSweep.drift} drifted, ${repair.lastSweep.fixed} fixed${repair.lastSweep.refused > 0 ? `, ${repair.lastSweep.refused} refused by a full shard (${repair.lastSweep.refusedShards.length} shards left unbuilt)` : ''}`,
    );
  else if (!repair?.sweep) lines.push('match index: no repair sweep yet (the next run starts one)');
  return lines;
}
