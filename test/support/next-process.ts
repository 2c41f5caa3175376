import { spawn, type ChildProcess } from 'node:child_process';
export { freePort } from './free-port';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildClient } from '../../scripts/build-client';

/**
 * The real app as a process the test owns: `next build`, then `next start` spawned directly from
 * node_modules/.bin (no npx in between), so `pid` is the server itself and `kill('SIGKILL')` is a
 * crash — no `finally`, no lock release, no record of a send whose answer had not arrived.
 *
 * (scripts/stack/next-server.ts is the stack's graceful runner: it goes through npx and only
 * knows SIGTERM, and does not expose the pid.)
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NEXT_BIN = fileURLToPath(new URL('../../node_modules/.bin/next', import.meta.url));

/**
 * A clean environment for the child: never the test worker's NODE_ENV=test or VITEST_* variables
 * (Next warns on a non-standard NODE_ENV and a test runner's variables are no part of a server).
 */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'JAVA_HOME'];
  const base = Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]));
  return { ...base, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', ...env };
}

/** Children still alive when the worker exits (a crashed test, an interrupted run) are killed with it. */
const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of alive) killGroup(child, 'SIGKILL');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal); // detached: the pid is also the process group id
  } catch {
    // already gone
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function spawnNext(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [NEXT_BIN, ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  alive.add(child);
  child.once('exit', () => alive.delete(child));
  const output: string[] = [];
  child.stdout.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr.on('data', (c: Buffer) => output.push(c.toString()));
  return { child, output: () => output.join('') };
}

/** Where test builds go, apart from a developer's `.next` (next.config.ts reads NEXT_DIST_DIR). */
export const TEST_DIST_DIR = '.next-test';
export const TEST_BUILD_ENV = { NEXT_DIST_DIR: TEST_DIST_DIR };

/**
 * One `next build` per test run, shared by every test file that needs the real server: the first
 * worker to take the lock (an atomic mkdir) builds, the others wait for its stamp. A file that
 * comes after the build finds the stamp and builds nothing: rebuilding would cost every such file
 * a build, and would rewrite the build under a server another worker is running from it.
 */
export async function ensureTestBuild(runStamp: string, timeoutMs = 240_000): Promise<{ durationMs: number; built: boolean }> {
  const stampFile = `${ROOT}/${TEST_DIST_DIR}/SCOUT_TEST_STAMP`;
  const lock = `${ROOT}/${TEST_DIST_DIR}.lock-${runStamp}`;
  const started = Date.now();
  const current = () => readFile(stampFile, 'utf8').catch(() => '');
  const waited = () => ({ durationMs: Date.now() - started, built: false });
  for (;;) {
    if ((await current()) === runStamp) return waited();
    try {
      await mkdir(lock);
    } catch {
      if (Date.now() - started > timeoutMs) throw new Error('timed out waiting for another worker to build the app');
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      // The builder may have finished between the stamp read and the mkdir.
      if ((await current()) === runStamp) return waited();
      const result = await buildNextApp({ env: TEST_BUILD_ENV, timeoutMs });
      await writeFile(stampFile, runStamp);
      return { ...result, built: true };
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
}

/** `next build` of the working tree, its form script bundled first as `npm run build` does; rejects with the build's output when it fails. */
export async function buildNextApp(input: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<{ durationMs: number }> {
  const started = Date.now();
  await buildClient();
  const { child, output } = spawnNext(['build'], input.env ?? {});
  const timeoutMs = input.timeoutMs ?? 200_000;
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  }).finally(() => clearTimeout(timer));
  if (code !== 0) throw new Error(`next build failed (exit ${code}) after ${Date.now() - started} ms:\n${output().slice(-4000)}`);
  return { durationMs: Date.now() - started };
}

export type NextProcess = {
  url: string;
  port: number;
  /** The `next start` process itself (and its process group). */
  pid: number;
  /** Everything the server printed (its JSON logs included). */
  output(): string;
  /** Signals the whole process group and waits until the server is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
};

/**
 * `next start` on 127.0.0.1:port with the given environment; resolves once GET /api/cron without
 * a secret answers `readyStatus` (401 by default: up, and guarding).
 */
export async function startNextProcess(input: {
  port: number;
  env: Record<string, string>;
  readyTimeoutMs?: number;
  /** The status that means "up"; `any` for a server whose answer is itself under test. */
  readyStatus?: number | 'any';
}): Promise<NextProcess> {
  const readyStatus = input.readyStatus ?? 401;
  const { child, output } = spawnNext(['start', '--port', String(input.port), '--hostname', '127.0.0.1'], input.env);
  const url = `http://127.0.0.1:${input.port}`;
  const deadline = Date.now() + (input.readyTimeoutMs ?? 60_000);
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    killGroup(child, signal);
    await exited(child);
  };
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`next start exited (${child.exitCode ?? child.signalCode}):\n${output().slice(-3000)}`);
    }
    try {
      const res = await fetch(`${url}/api/cron`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (readyStatus === 'any' || res.status === readyStatus) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await kill();
      throw new Error(`next start did not answer on ${url} in time:\n${output().slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    url,
    port: input.port,
    pid: child.pid!,
    output,
    kill,
    async stop() {
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
      await kill('SIGTERM');
      clearTimeout(timer);
    },
  };
}
