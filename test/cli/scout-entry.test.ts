import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { createFirestore } from '../../lib/store/firestore';
import { subscribersCollection } from '../../lib/subscribers/subscriber';

const run = promisify(execFile);

/** `npx tsx scripts/scout.ts …` as an operator types it; resolves with the exit code instead of throwing. */
async function scout(argv: string[], env: Record<string, string | undefined>) {
  const { FIREBASE_PROJECT_ID: _p, FIRESTORE_EMULATOR_HOST: _h, FIREBASE_SERVICE_ACCOUNT: _s, ...base } = process.env;
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'scripts/scout.ts', ...argv], { env: { ...base, ...env }, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout: string; stderr: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('scripts/scout.ts', () => {
  it('--help exits 0 without any configuration', async () => {
    const result = await scout(['--help'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('users import');
  });

  it('without FIREBASE_PROJECT_ID it names the variable and exits 2', async () => {
    const result = await scout(['users', 'list'], { FIRESTORE_EMULATOR_HOST: inject('firestoreEmulatorHost') });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('FIREBASE_PROJECT_ID is required');
  });

  it('adds a subscriber on the emulator and exits on its own', async () => {
    const projectId = `scout-cli-${randomBytes(5).toString('hex')}`;
    const host = inject('firestoreEmulatorHost');
    const result = await scout(['users', 'add', 'ops@example.com', '--keywords', 'react'], {
      FIREBASE_PROJECT_ID: projectId,
      FIRESTORE_EMULATOR_HOST: host,
    });

    expect(result).toMatchObject({ code: 0, stdout: 'created ops@example.com (instant; keywords: react)\n' });
    process.env.FIRESTORE_EMULATOR_HOST = host;
    const db = createFirestore({ projectId });
    try {
      expect((await subscribersCollection(db).get()).docs.map((d) => d.data().email)).toEqual(['ops@example.com']);
    } finally {
      await db.terminate();
    }
  });
});
