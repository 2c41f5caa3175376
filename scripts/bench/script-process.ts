import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A test server (the mail sink, the model fake) in a process of its own, by the URL it printed first. */
export type ScriptProcess = { url: string; close: () => Promise<void> };

/**
 * Starts `tsx <main> <args>` and waits for the first line of its stdout: the bare URL the sink and
 * the fake print once they listen. Apart from the bench's process so the bench's peak memory is
 * Scout's alone (the sink keeps every message, the fake every request) and their work takes no
 * time from Scout's event loop.
 */
export async function startScriptProcess(main: URL, args: string[]): Promise<ScriptProcess> {
  const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
  // A heap cap given to the bench (NODE_OPTIONS=--max-old-space-size=…) is for Scout, not for these.
  const env = { ...process.env, NODE_OPTIONS: '' };
  const child = spawn(tsx, [fileURLToPath(main), ...args], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${fileURLToPath(main)} exited (${code})`)));
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().split('\n')[0].trim()));
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
