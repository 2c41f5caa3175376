import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Tuning } from '../../lib/runtime/config';
import type { ShardCall } from './shard-caller';
import type { ShardProcessInit, ShardProcessRequest } from './shard-process';

/** n shard callers, one process each (shard-process.ts), called together as n schedulers call a sharded deployment. */
export type ShardProcesses = { call(now: string): Promise<ShardCall[]>; close(): Promise<void> };

/**
 * Starts one process per shard, each with the bench's environment and its own Firestore client.
 * They inherit NODE_OPTIONS, so a heap cap given to the bench caps each shard's process.
 */
export async function startShardProcesses(input: {
  env: Record<string, string | undefined>;
  tuning: Tuning;
  shards: number;
}): Promise<ShardProcesses> {
  const main = fileURLToPath(new URL('./shard-process.ts', import.meta.url));
  let nextId = 0;
  const waiting = new Map<number, { resolve: (r: ShardCall) => void; reject: (e: Error) => void }>();
  const children: ChildProcess[] = await Promise.all(
    Array.from({ length: input.shards }, async (_, shard) => {
      const init: ShardProcessInit = { env: input.env, tuning: input.tuning, shard, shards: input.shards };
      const child = fork(main, [JSON.stringify(init)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      await new Promise<void>((resolve, reject) => {
        child.once('exit', (code) => reject(new Error(`shard ${shard}'s process exited (${code}) before it was ready`)));
        child.once('message', () => resolve());
      });
      child.removeAllListeners('exit');
      child.on('message', (message: { id: number; result?: ShardCall; error?: string }) => {
        const w = waiting.get(message.id);
        waiting.delete(message.id);
        if (message.error !== undefined) w?.reject(new Error(message.error));
        else w?.resolve(message.result!);
      });
      child.on('exit', (code) => {
        for (const [id, w] of waiting) {
          waiting.delete(id);
          w.reject(new Error(`a shard's process exited (${code}) during a call`));
        }
      });
      return child;
    }),
  );
  const send = (child: ChildProcess, request: ShardProcessRequest) => child.send(request);
  return {
    call: (now) =>
      Promise.all(
        children.map(
          (child) =>
            new Promise<ShardCall>((resolve, reject) => {
              const id = nextId++;
              waiting.set(id, { resolve, reject });
              send(child, { type: 'call', id, now });
            }),
        ),
      ),
    close: async () => {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              send(child, { type: 'stop' });
            }),
        ),
      );
    },
  };
}
