import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The mail sink in a process of its own, so the bench's peak memory is Scout's alone (the sink
 * keeps every message it receives). Driven over its HTTP surface: faults and message counts.
 */
export type SinkProcess = {
  url: string;
  setFaults(apiKey: string, faults: object): Promise<void>;
  count(apiKey: string): Promise<number>;
  close(): Promise<void>;
};

export async function startSinkProcess(): Promise<SinkProcess> {
  const main = fileURLToPath(new URL('../mail-sink/main.ts', import.meta.url));
  const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
  // A heap cap given to the bench (NODE_OPTIONS=--max-old-space-size=…) is for Scout, not for the sink that keeps every message.
  const env = { ...process.env, NODE_OPTIONS: '' };
  const child = spawn(tsx, [main, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`mail sink exited (${code})`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().split('\n')[0].trim()));
  });
  return {
    url,
    async setFaults(apiKey, faults) {
      const res = await fetch(`${url}/sink/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiKey, ...faults }),
      });
      if (!res.ok) throw new Error(`sink faults: ${res.status}`);
    },
    async count(apiKey) {
      const res = await fetch(`${url}/sink/messages/count?${new URLSearchParams({ apiKey })}`);
      return ((await res.json()) as { count: number }).count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
