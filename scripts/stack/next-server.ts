import { spawn, type ChildProcess } from 'node:child_process';
import { buildClient, watchClient } from '../build-client';

export type NextServer = { url: string; stop(): Promise<void> };

/**
 * Runs the real app (`next dev` or `next start`) with the given environment and waits until its
 * cron route answers (401 without a secret is the sign that it is up and guarding). The pages'
 * form script is bundled first (scripts/build-client.ts): public/ is served as it is on disk; under
 * `next dev` it is bundled again on every change, as Next recompiles the rest.
 */
export async function startNextServer(input: {
  mode: 'dev' | 'start';
  port: number;
  env: Record<string, string>;
  quiet?: boolean;
}): Promise<NextServer> {
  const client = input.mode === 'dev' ? await watchClient() : (await buildClient(), null);
  const child = spawn('npx', ['next', input.mode, '--port', String(input.port), '--hostname', '127.0.0.1'], {
    env: { ...process.env, ...input.env, NEXT_TELEMETRY_DISABLED: '1' },
    stdio: input.quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    detached: true,
  });
  const output: string[] = [];
  child.stdout?.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
  const url = `http://127.0.0.1:${input.port}`;
  try {
    await untilUp(child, url, input.mode, output);
  } catch (error) {
    await client?.stop();
    throw error;
  }
  return {
    url,
    stop: async () => {
      await stop(child);
      await client?.stop();
    },
  };
}

async function untilUp(child: ChildProcess, url: string, mode: 'dev' | 'start', output: string[]) {
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next ${mode} exited (${child.exitCode}):\n${output.join('').slice(-3000)}`);
    try {
      const res = await fetch(`${url}/api/cron`, { signal: AbortSignal.timeout(60_000) });
      if (res.status === 401) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop(child);
      throw new Error(`next ${mode} did not answer within 180 s:\n${output.join('').slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    // npx → next → workers: signal the whole process group.
    process.kill(-child.pid!, 'SIGTERM');
  });
}
