import { spawn, type ChildProcess } from 'node:child_process';
import { buildClient } from '../build-client';

export type NextServer = { url: string; stop(): Promise<void> };

/**
 * Runs the real app (`next dev` or `next start`) with the given environment and waits until its
 * cron route answers (401 without a secret is the sign that it is up and guarding). The pages'
 * form script is bundled first (scripts/build-client.ts): public/ is served as it is on disk.
 */
export async function startNextServer(input: {
  mode: 'dev' | 'start';
  port: number;
  env: Record<string, string>;
  quiet?: boolean;
}): Promise<NextServer> {
  await buildClient();
  const child = spawn('npx', ['next', input.mode, '--port', String(input.port), '--hostname', '127.0.0.1'], {
    env: { ...process.env, ...input.env, NEXT_TELEMETRY_DISABLED: '1' },
    stdio: input.quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    detached: true,
  });
  const output: string[] = [];
  child.stdout?.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
  const url = `http://127.0.0.1:${input.port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next ${input.mode} exited (${child.exitCode}):\n${output.join('').slice(-3000)}`);
    try {
      const res = await fetch(`${url}/api/cron`, { signal: AbortSignal.timeout(60_000) });
      if (res.status === 401) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop(child);
      throw new Error(`next ${input.mode} did not answer within 180 s:\n${output.join('').slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { url, stop: () => stop(child) };
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
