/**
 * One shard's caller in a process of its own (`npm run bench -- --shards n` starts n of them):
 * a sharded deployment runs each shard's invocation in its own function instance, so each has its
 * own heap, its own Firestore client and its own 300 s wall. Driven over the IPC channel by
 * shard-processes.ts: `{ type: 'call', now }` runs the endpoint once at that clock and answers the
 * call's body, phases and counts (shard-caller.ts) and this process's peak RSS so far.
 */
import { instrumentFirestore } from './firestore-counter';
import type { Tuning } from '../../lib/runtime/config';
import { benchDeps, benchLane, shardCaller, trackPeakMemory } from './shard-caller';

export type ShardProcessInit = { env: Record<string, string | undefined>; tuning: Tuning; shard: number; shards: number };
export type ShardProcessRequest = { type: 'call'; id: number; now: string } | { type: 'stop' };

const init = JSON.parse(process.argv[2] ?? '') as ShardProcessInit;
const peak = trackPeakMemory();
const counter = instrumentFirestore({ lane: benchLane });
const call = shardCaller({
  deps: benchDeps(init.env, init.tuning),
  counter,
  shard: init.shard,
  shards: init.shards,
  peakRssMb: peak.peakMb,
});

process.on('message', (message: ShardProcessRequest) => {
  if (message.type === 'stop') process.exit(0);
  call(message.now).then(
    (result) => process.send!({ id: message.id, result }),
    (error: unknown) => process.send!({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
process.send!({ ready: true });
