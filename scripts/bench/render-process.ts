import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RenderFigures } from './bench-result';

/**
 * `npm run bench:render -- --json` run alongside the bench, in a process of its own: its figures
 * are CPU time per email, and a process of its own keeps them free of the bench's heap (and the
 * bench's peak memory free of its templates). Resolves to the one JSON line it prints.
 */
export async function measureRendering(input: { emails?: number; repeats?: number } = {}): Promise<RenderFigures> {
  const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
  const main = fileURLToPath(new URL('./render-bench.ts', import.meta.url));
  const args = [main, '--json', '--emails', String(input.emails ?? 1000), '--repeats', String(input.repeats ?? 3)];
  // React renders as deployed (production mode), whatever the bench was started with; a heap cap given to the bench is Scout's.
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', NODE_OPTIONS: '' };
  const child = spawn(tsx, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`render bench exited with ${code}`);
  const line = out.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as RenderFigures;
}
