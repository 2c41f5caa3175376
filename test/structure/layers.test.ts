import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const depcruise = join(root, 'node_modules/.bin/depcruise');

/** Runs the repository's dependency rules over a tree of files, as `npm test` runs them over lib/. */
async function cruise(cwd: string, paths: string[]) {
  try {
    const { stdout } = await run(depcruise, [...paths, '--config', join(root, '.dependency-cruiser.cjs')], { cwd });
    return { ok: true, output: stdout };
  } catch (error) {
    const failed = error as { stdout?: string; code?: number };
    return { ok: false, output: failed.stdout ?? '' };
  }
}

describe('the tier rules (.dependency-cruiser.cjs)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'scout-layers-'));
    await cp(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function plant(files: Record<string, string>) {
    const tree = await mkdtemp(join(dir, 'tree-'));
    await cp(join(root, 'tsconfig.json'), join(tree, 'tsconfig.json'));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(tree, path, '..'), { recursive: true });
      await writeFile(join(tree, path), text);
    }
    return tree;
  }

  it('a store helper importing the cycle (an upward import) fails the check', async () => {
    const tree = await plant({
      'lib/cycle/run-cycle.ts': `export const runCycle = () => 1;\n`,
      'lib/store/firestore.ts': `import { runCycle } from '../cycle/run-cycle';\nexport const x = runCycle();\n`,
    });
    const result = await cruise(tree, ['lib']);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('store-imports-only-lower-tiers');
    expect(result.output).toContain('lib/store/firestore.ts → lib/cycle/run-cycle.ts');
  });

  it('the same import pointing down (cycle uses store) passes', async () => {
    const tree = await plant({
      'lib/store/firestore.ts': `export const x = 1;\n`,
      'lib/cycle/run-cycle.ts': `import { x } from '../store/firestore';\nexport const runCycle = () => x;\n`,
    });
    expect(await cruise(tree, ['lib'])).toMatchObject({ ok: true });
  });

  it('two folders of one tier side by side (ops and archive, both surfaces) may not import each other', async () => {
    const tree = await plant({
      'lib/archive/read-archive.ts': `export const a = 1;\n`,
      'lib/ops/read-status.ts': `import { a } from '../archive/read-archive';\nexport const s = a;\n`,
    });
    const result = await cruise(tree, ['lib']);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('ops-imports-only-lower-tiers');
  });

  it('a folder its tier lets build on a neighbour (claims on the outbox) passes', async () => {
    const tree = await plant({
      'lib/outbox/outbox-row.ts': `export const row = 1;\n`,
      'lib/claims/claim-deliveries.ts': `import { row } from '../outbox/outbox-row';\nexport const c = row;\n`,
    });
    expect(await cruise(tree, ['lib'])).toMatchObject({ ok: true });
  });

  it('the ledger reaching up into the engine (a run record importing the outbox) fails', async () => {
    const tree = await plant({
      'lib/outbox/dispatch-stats.ts': `export type T = number;\n`,
      'lib/ledger/runs.ts': `import type { T } from '../outbox/dispatch-stats';\nexport const r: T = 1;\n`,
    });
    const result = await cruise(tree, ['lib']);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('ledger-imports-only-lower-tiers');
  });

  it('a folder missing from the tier list fails, so no folder escapes the order', async () => {
    const tree = await plant({
      'lib/helpers/anything.ts': `import { join } from 'node:path';\nexport const y = join('a', 'b');\n`,
      'lib/store/a.ts': `import { y } from '../helpers/anything';\nexport const z = y;\n`,
    });
    const result = await cruise(tree, ['lib']);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('lib-folders-are-tiered');
    expect(result.output).toContain('store-imports-only-lower-tiers');
  });

  it('browser code importing the server (the store) fails the check; importing a shared constant passes', async () => {
    const tree = await plant({
      'lib/store/firestore.ts': `export const db = 1;\n`,
      'lib/preview/preview.ts': `export const PREVIEW_DEBOUNCE_MS = 400;\n`,
      'lib/client/forms.ts': `import { db } from '../store/firestore';\nimport { PREVIEW_DEBOUNCE_MS } from '../preview/preview';\nexport const x = db + PREVIEW_DEBOUNCE_MS;\n`,
    });
    const result = await cruise(tree, ['lib']);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('client-imports-only-browser-safe-modules');
    expect(result.output).toContain('lib/client/forms.ts → lib/store/firestore.ts');
    expect(result.output).not.toContain('lib/client/forms.ts → lib/preview/preview.ts');
  });

  it('a script importing a test file fails the check', async () => {
    const tree = await plant({
      'test/support/fixture.ts': `export const f = 1;\n`,
      'scripts/tool.ts': `import { f } from '../test/support/fixture';\nexport const g = f;\n`,
    });
    const result = await cruise(tree, ['scripts']);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('scripts-never-import-tests');
  });

  it('two files of one folder importing each other fail as a cycle', async () => {
    const tree = await plant({
      'lib/outbox/a.ts': `import { b } from './b';\nexport const a = () => b;\n`,
      'lib/outbox/b.ts': `import { a } from './a';\nexport const b = () => a;\n`,
    });
    const result = await cruise(tree, ['lib']);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('no-import-cycles');
  });

  it("Scout's own code passes", async () => {
    const result = await cruise(root, ['lib', 'app', 'scripts', 'proxy.ts', 'instrumentation.ts']);
    expect(result.output).toContain('no dependency violations found');
    expect(result.ok).toBe(true);
  });
});
