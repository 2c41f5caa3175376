import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { usersImport } from '../../scripts/cli/users-import';
import { createCliFixture, type CliFixture } from './cli-fixture';

let fx: CliFixture;
beforeEach(() => {
  fx = createCliFixture();
});
afterEach(() => fx.close());

async function csvFile(text: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'scout-cli-')), 'subscribers.csv');
  await writeFile(file, text);
  return file;
}

describe('scout users import', () => {
  it('imports the valid rows, reports each bad row by line number, and exits 1', async () => {
    const file = await csvFile(
      [
        'email,keywords,excludes,min_budget,mode',
        'ana@example.com,react;next.js,wordpress,500,instant',
        'not-an-email,python,,,daily',
        'ben@example.com,firebase,,lots,daily',
        'cleo@example.com,figma,,,hourly',
        'dev@example.com,,,,daily',
        'eve@example.com,"django, python",,,daily',
      ].join('\n'),
    );
    const ctx = fx.ctx();

    expect(await usersImport(ctx, { file })).toBe(1);

    expect(ctx.lines).toEqual([
      'line 3: email "not-an-email": must be an email address',
      'line 4: min_budget "lots": must be an amount, like 500, $1,500 or 150k',
      'line 5: mode "hourly" must be instant, daily, weekly or feed',
      'line 6: keywords: at least one keyword',
      `${file}: 6 rows — 2 created, 0 updated, 0 kept-unsubscribed, 4 invalid`,
    ]);
    const users = await fx.users();
    expect(users.map((u) => u.email).sort()).toEqual(['ana@example.com', 'eve@example.com']);
    expect(users.find((u) => u.email === 'eve@example.com')).toMatchObject({
      keywords: ['django', 'python'],
      mode: 'daily',
      status: 'active',
    });
  });

  it('reports a row whose keywords or excludes no posting word can match, and still imports the good rows', async () => {
    const file = await csvFile(
      [
        'email,keywords,excludes,min_budget,mode',
        'ana@example.com,<script>alert(1)</script>;react,,,instant',
        'ben@example.com,react,php\u200b,,daily',
        'cleo@example.com,++,,,daily',
        "dev@example.com,разработчик;開発;c++;c#;node.js;ui/ux;r&d;o'reilly,wordpress,,daily",
      ].join('\n'),
    );
    const ctx = fx.ctx();

    expect(await usersImport(ctx, { file })).toBe(1);

    const allowed = "letters, digits, spaces and + # . - / & '";
    expect(ctx.lines).toEqual([
      `line 2: keywords: each keyword may use only ${allowed} ("<" is not allowed)`,
      `line 3: excludes: each exclude may use only ${allowed} (U+200B, an invisible character, is not allowed)`,
      'line 4: keywords: each keyword needs a letter or digit: "++" can never match a posting\'s words',
      `${file}: 4 rows — 1 created, 0 updated, 0 kept-unsubscribed, 3 invalid`,
    ]);
    const users = await fx.users();
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({
      email: 'dev@example.com',
      keywords: ['разработчик', '開発', 'c++', 'c#', 'node.js', 'ui/ux', 'r&d', "o'reilly"],
    });
  });

  it('reads an optional about column (quoted when it holds commas); a row leaving it empty keeps what is stored', async () => {
    const ctx = fx.ctx();
    const file = await csvFile(
      ['email,keywords,mode,about', 'ana@example.com,react,instant,"Senior, remote, no agencies"', 'ben@example.com,go,daily,'].join('\n'),
    );
    expect(await usersImport(ctx, { file })).toBe(0);
    const byEmail = async () => Object.fromEntries((await fx.users()).map((u) => [u.email, u]));
    expect((await byEmail())['ana@example.com']).toMatchObject({ about: 'Senior, remote, no agencies', profileVersion: 1 });
    expect((await byEmail())['ben@example.com']).toMatchObject({ about: '', profileVersion: 1 });

    const again = await csvFile(['email,keywords,mode', 'ana@example.com,react,daily'].join('\n'));
    expect(await usersImport(fx.ctx(), { file: again })).toBe(0);
    expect((await byEmail())['ana@example.com']).toMatchObject({ about: 'Senior, remote, no agencies', mode: 'daily', profileVersion: 1 });

    const tooLong = await csvFile(['email,keywords,about', `cleo@example.com,figma,${'a'.repeat(501)}`].join('\n'));
    const ctx3 = fx.ctx();
    expect(await usersImport(ctx3, { file: tooLong })).toBe(1);
    expect(ctx3.lines[0]).toBe('line 2: about: must be at most 500 characters (it has 501)');
  });

  it('counts updates and kept-unsubscribed, and the last row for an email wins', async () => {
    await fx.cli(['users', 'add', 'old@example.com', '--keywords', 'php']);
    await fx.cli(['users', 'add', 'gone@example.com', '--keywords', 'php']);
    await fx.setStatus('gone@example.com', 'unsubscribed');
    const file = await csvFile(
      [
        'email,keywords,mode',
        'OLD@example.com,laravel,daily',
        'gone@example.com,php,instant',
        'new@example.com,go,instant',
        'New@Example.com,rust,daily',
      ].join('\n'),
    );

    const run = await fx.cli(['users', 'import', file]);

    expect(run.code).toBe(0);
    expect(run.out).toEqual([
      'line 3: gone@example.com unsubscribed earlier and stays unsubscribed',
      `${file}: 4 rows — 1 created, 2 updated, 1 kept-unsubscribed, 0 invalid`,
    ]);
    const byEmail = Object.fromEntries((await fx.users()).map((u) => [u.email, u]));
    expect(Object.keys(byEmail).sort()).toEqual(['gone@example.com', 'new@example.com', 'old@example.com']);
    expect(byEmail['old@example.com']).toMatchObject({ keywords: ['laravel'], mode: 'daily' });
    expect(byEmail['gone@example.com']).toMatchObject({ status: 'unsubscribed' });
    expect(byEmail['new@example.com']).toMatchObject({ keywords: ['rust'], mode: 'daily' });
  });

  it('imports the demo subscribers: two instant, two daily; a second import changes nothing', async () => {
    const file = 'scripts/demo/demo-subscribers.csv';
    const first = await fx.cli(['users', 'import', file]);
    expect(first).toMatchObject({ code: 0, out: [`${file}: 4 rows — 4 created, 0 updated, 0 kept-unsubscribed, 0 invalid`] });
    const users = await fx.users();
    expect(users.filter((u) => u.mode === 'instant')).toHaveLength(2);
    expect(users.filter((u) => u.mode === 'daily')).toHaveLength(2);

    const again = await fx.cli(['users', 'import', file]);
    expect(again.out).toEqual([`${file}: 4 rows — 0 created, 4 updated, 0 kept-unsubscribed, 0 invalid`]);
    expect(await fx.users()).toEqual(users);
  });

  it('a missing file is a usage error and writes nothing', async () => {
    const run = await fx.cli(['users', 'import', '/nonexistent/subscribers.csv']);
    expect(run.code).toBe(2);
    expect(run.out[0]).toMatch(/^cannot read \/nonexistent\/subscribers\.csv/);
    expect(await fx.users()).toEqual([]);
  });

  it('without a file argument: exit 2 naming it, store never opened', async () => {
    const run = await fx.cli(['users', 'import']);
    expect(run).toMatchObject({ code: 2, opened: false });
    expect(run.err[0]).toBe('scout users import: missing <file.csv>');
  });
});
