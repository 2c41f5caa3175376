import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, SCHEMA_VERSION } from '../../lib/ledger/migrations/migrations';
import { readSchema } from '../../lib/ledger/migrations/schema-version';
import { storeAtSchemaVersion } from '../support/schema';
import { createCliFixture, type CliFixture } from './cli-fixture';

let fx: CliFixture;
beforeEach(() => {
  fx = createCliFixture();
});
afterEach(() => fx.close());

describe('scout migrate', () => {
  it('brings a store with no schema version through every migration, in order, then says there is nothing to do', async () => {
    const run = await fx.cli(['migrate']);
    expect(run.code).toBe(0);
    expect(run.out.filter((line) => line.startsWith('applying '))).toEqual(
      MIGRATIONS.map((m) => `applying ${m.version} ${m.name}: ${m.changes}`),
    );
    expect(run.out.at(-1)).toBe(`done: the store is at schema version ${SCHEMA_VERSION}, as this code`);
    expect(await readSchema(fx.db)).toMatchObject({ version: SCHEMA_VERSION, applying: null });

    const again = await fx.cli(['migrate']);
    expect(again).toMatchObject({ code: 0, out: [`nothing to do: the store is at schema version ${SCHEMA_VERSION}, as this code`] });
  });

  it('from an older version applies only the steps after it', async () => {
    await storeAtSchemaVersion(fx.db, SCHEMA_VERSION - 1);
    const run = await fx.cli(['migrate']);
    const last = MIGRATIONS.at(-1)!;
    expect(run.out).toEqual([
      `applying ${last.version} ${last.name}: ${last.changes}`,
      `applied ${last.version} ${last.name}: 0 documents changed`,
      `done: the store is at schema version ${SCHEMA_VERSION}, as this code`,
    ]);
  });

  it('5 invocations at once: each step applied once; the others stop at the step one holds (exit 1) or find the store done (exit 0)', async () => {
    const runs = await Promise.all(Array.from({ length: 5 }, () => fx.cli(['migrate'])));
    const applied = runs.flatMap((r) => r.out.filter((line) => line.startsWith('applied ')).map((line) => line.split(':')[0]));
    expect(applied.sort()).toEqual(MIGRATIONS.map((m) => `applied ${m.version} ${m.name}`).sort());
    for (const r of runs) {
      if (r.code === 1)
        expect(r.out.at(-1)).toMatch(/^migration \d \S+ is being applied by another scout migrate \(.+\) until .+: run again after it$/);
      else expect(r.code).toBe(0);
    }
    expect((await readSchema(fx.db))?.applied.map((a) => a.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('--dry-run says what each pending step would change and writes nothing: no schema version, no document touched', async () => {
    await fx.db
      .collection('users')
      .doc('dXNlckBleGFtcGxlLmNvbQ')
      .set({ email: 'user@example.com', minBudget: 500, keywords: ['react'] });
    const dry = await fx.cli(['migrate', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('would apply 4 min-pay: 1 document to change');
    expect(dry.out.at(-1)).toBe(`dry run: nothing written; the store stays at schema version 0 of ${SCHEMA_VERSION}`);
    expect(await readSchema(fx.db)).toBeNull();
    expect((await fx.db.collection('users').doc('dXNlckBleGFtcGxlLmNvbQ').get()).get('minBudget')).toBe(500);

    const run = await fx.cli(['migrate']);
    expect(run.out).toContain('applied 4 min-pay: 1 document changed');
    expect(await fx.cli(['migrate', '--dry-run'])).toMatchObject({
      code: 0,
      out: [`nothing to do: the store is at schema version ${SCHEMA_VERSION}, as this code (dry run: nothing written)`],
    });
  });

  it('on a store newer than the code applies nothing and says so, exit 1', async () => {
    await storeAtSchemaVersion(fx.db, SCHEMA_VERSION + 1);
    expect(await fx.cli(['migrate'])).toMatchObject({
      code: 1,
      out: [`the store is at schema version ${SCHEMA_VERSION + 1}, newer than this code's ${SCHEMA_VERSION} (a rollback?)`],
    });
  });

  it('a step that cannot finish names what blocks it, exit 1, and the store stays behind', async () => {
    await fx.db.collection('deliveries').doc('uid-x_2026-11-29').set({ day: '2026-11-29' });
    const run = await fx.cli(['migrate']);
    expect(run.code).toBe(1);
    expect(run.err).toEqual([
      expect.stringMatching(/^scout migrate failed: left in place, not readable as day documents .*deliveries\/uid-x_2026-11-29/),
    ]);
    const status = await fx.cli(['status']);
    expect(status.code).toBe(1);
    expect(status.out[0]).toMatch(
      /^schema: the store is at schema version 0 and this code needs \d+: run `scout migrate`.* \(migration 1 per-pair-ledger taken by /,
    );
  });

  it('--help lists the migrations; an argument is a usage error that opens nothing', async () => {
    const help = await fx.cli(['migrate', '--help']);
    expect(help.out[0]).toBe('Usage: scout migrate [--dry-run]');
    expect(help.out.join('\n')).toContain(`  1. ${MIGRATIONS[0].name}: `);
    expect((await fx.cli(['--help'])).out.join('\n')).toMatch(/migrate\s+bring the store to this code's schema version/);
    expect(await fx.cli(['migrate', 'now'])).toMatchObject({ code: 2, opened: false });
  });
});
