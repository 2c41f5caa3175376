/**
 * Bundles the browser's code (lib/client, TypeScript that imports its constants and checks from
 * lib/) into the one static script the pages load, public/scout-forms.js (lib/http/form-script.ts).
 * A build output, not in git: `npm run build`, `npm run dev`/`demo` (scripts/stack/next-server.ts)
 * and the tests' Next build (test/support/next-process.ts) run this first.
 *
 * Deterministic: the same sources give the same bytes (no timestamps, no absolute paths), so a
 * build changes the file only when the code changed.
 */
import { build, context, type BuildOptions } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLIENT_ENTRY = 'lib/client/forms.ts';
export const CLIENT_BUNDLE = 'public/scout-forms.js';

const options = (write: boolean): BuildOptions => ({
  absWorkingDir: ROOT,
  entryPoints: [CLIENT_ENTRY],
  outfile: CLIENT_BUNDLE,
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2022'],
  minify: true,
  legalComments: 'none',
  charset: 'utf8',
  write,
  logLevel: 'warning',
});

/** The bundle's text, or (with `write`) the file written. */
export async function buildClient({ write = true }: { write?: boolean } = {}): Promise<string | null> {
  const result = await build(options(write));
  return write ? null : new TextDecoder().decode(result.outputFiles?.[0]?.contents);
}

/** For `next dev`: the file written now and again on every change to what it bundles; `stop` ends the watch. */
export async function watchClient(): Promise<{ stop(): Promise<void> }> {
  const watching = await context(options(true));
  await watching.rebuild();
  await watching.watch();
  return { stop: () => watching.dispose() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildClient();
