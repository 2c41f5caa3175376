import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { parseUsersAddArgs, usersAdd } from '../../scripts/cli/users-add';
import { createCliFixture, type CliFixture } from './cli-fixture';

let fx: CliFixture;
beforeEach(() => {
  fx = createCliFixture();
});
afterEach(() => fx.close());

describe('scout users add', () => {
  it('creates an active, confirmed subscriber from the arguments', async () => {
    const run = await fx.cli([
      'users',
      'add',
      'Maya.Chen@Example.com',
      '--keywords',
      'React, Next.js',
      '--excludes',
      'wordpress',
      '--min-budget',
      '500',
      '--mode',
      'daily',
    ]);

    expect(run.code).toBe(0);
    expect(run.out).toEqual([
      'created maya.chen@example.com (daily; keywords: react, next.js; excludes: wordpress; min pay: $500 fixed-price)',
    ]);
    const users = await fx.users();
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({
      id: subscriberId('maya.chen@example.com'),
      email: 'maya.chen@example.com',
      keywords: ['react', 'next.js'],
      excludes: ['wordpress'],
      minPay: { fixed: { amount: 500, currency: 'USD' }, hourly: null, yearly: null },
      mode: 'daily',
      status: 'active',
      confirmedAt: fx.now,
    });
  });

  it('--query stores a written query, with the keyword lists read from it; a query that does not parse says where and writes nothing', async () => {
    const run = await fx.cli(['users', 'add', 'q@example.com', '--query', 'title:(react OR vue) remote:yes -wordpress rate>=60']);
    expect(run.code).toBe(0);
    expect(run.out).toEqual(['created q@example.com (instant; query: title:(react OR vue) remote:yes -wordpress rate>=60)']);
    expect((await fx.users())[0]).toMatchObject({
      query: 'title:(react OR vue) remote:yes -wordpress rate>=60',
      keywords: ['react', 'vue'],
      excludes: ['wordpress'],
    });

    const bad = await fx.cli(['users', 'add', 'r@example.com', '--query', 'react (vue OR angular']);
    expect(bad.code).not.toBe(0);
    expect(bad.err.join('\n')).toContain('--query: `(` at 6 is never closed');
    expect(await fx.users()).toHaveLength(1);

    // The lists' own query is stored as its canonical text, whichever way it was typed.
    await fx.cli(['users', 'add', 's@example.com', '--query', 'react | vue -php']);
    expect((await fx.users()).find((u) => u.email === 's@example.com')).toMatchObject({
      query: 'react OR vue -php',
      keywords: ['react', 'vue'],
    });
  });

  it('--min-fixed, --min-hourly and --min-yearly set a minimum per kind, in --min-currency unless the amount names its own', async () => {
    const run = await fx.cli([
      'users',
      'add',
      'ana@example.com',
      '--keywords',
      'react',
      '--min-fixed',
      '$1,500',
      '--min-hourly',
      '45',
      '--min-yearly',
      '90k',
      '--min-currency',
      'eur',
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toEqual(['created ana@example.com (instant; keywords: react; min pay: $1,500 fixed-price, €45/hour, €90,000/year)']);
    expect((await fx.users())[0]).toMatchObject({
      minPay: {
        fixed: { amount: 1500, currency: 'USD' },
        hourly: { amount: 45, currency: 'EUR' },
        yearly: { amount: 90_000, currency: 'EUR' },
      },
    });
  });

  it('--about sets what they want; an update without it keeps it, a changed one bumps the profile version', async () => {
    const first = await fx.cli(['users', 'add', 'sam@example.com', '--keywords', 'react', '--about', '  Long-term React work.  ']);
    expect(first.out).toEqual(['created sam@example.com (instant; keywords: react; about: 21 characters)']);
    expect((await fx.users())[0]).toMatchObject({ about: 'Long-term React work.', profileVersion: 1, fitThreshold: 60 });

    await fx.cli(['users', 'add', 'sam@example.com', '--keywords', 'react', '--mode', 'daily']);
    expect((await fx.users())[0]).toMatchObject({ about: 'Long-term React work.', mode: 'daily', profileVersion: 1 });

    await fx.cli(['users', 'add', 'sam@example.com', '--keywords', 'react', '--about', 'Short gigs.']);
    expect((await fx.users())[0]).toMatchObject({ about: 'Short gigs.', profileVersion: 2 });
  });

  it('--about over 500 characters or with a control character is a usage error naming it', async () => {
    const long = await fx.cli(['users', 'add', 'sam@example.com', '--keywords', 'react', '--about', 'a'.repeat(501)]);
    expect(long.code).toBe(2);
    expect(long.err.join('\n')).toContain('--about: must be at most 500 characters (it has 501)');
    const control = await fx.cli(['users', 'add', 'sam@example.com', '--keywords', 'react', '--about', 'a\u0007']);
    expect(control.err.join('\n')).toContain('--about: may not contain U+0007, a control character');
    expect(await fx.users()).toEqual([]);
  });

  it('adding the same email twice in a different case updates the one subscriber', async () => {
    expect((await fx.cli(['users', 'add', 'sam@example.com', '--keywords', 'react'])).out[0]).toMatch(/^created sam@example\.com/);
    const second = await fx.cli(['users', 'add', '  SAM@Example.COM ', '--keywords', 'firebase; firestore', '--mode', 'daily']);

    expect(second.code).toBe(0);
    expect(second.out[0]).toMatch(/^updated sam@example\.com \(daily; keywords: firebase, firestore\)$/);
    const users = await fx.users();
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({
      email: 'sam@example.com',
      keywords: ['firebase', 'firestore'],
      mode: 'daily',
      minPay: { fixed: null, hourly: null, yearly: null },
    });
  });

  it('keeps someone who unsubscribed unsubscribed, and says so', async () => {
    await fx.cli(['users', 'add', 'gone@example.com', '--keywords', 'react']);
    await fx.setStatus('gone@example.com', 'unsubscribed');

    const run = await fx.cli(['users', 'add', 'gone@example.com', '--keywords', 'vue']);

    expect(run.code).toBe(0);
    expect(run.out[0]).toMatch(/^kept-unsubscribed gone@example\.com/);
    expect((await fx.users())[0]).toMatchObject({ status: 'unsubscribed', keywords: ['react'] });
  });

  it.each([
    { argv: ['not-an-email', '--keywords', 'react'], names: '<email> "not-an-email"' },
    { argv: ['a@example.com'], names: '--keywords' },
    { argv: ['a@example.com', '--keywords', ' , '], names: '--keywords' },
    { argv: ['a@example.com', '--keywords', 'react', '--mode', 'hourly'], names: '--mode' },
    { argv: ['a@example.com', '--keywords', 'react', '--min-budget', 'lots'], names: '--min-budget' },
    { argv: ['a@example.com', '--keywords', 'react', '--min-budget=-5'], names: '--min-budget' },
    { argv: ['a@example.com', '--keywords', 'react', '--min-yearly', 'plenty'], names: '--min-yearly' },
    { argv: ['a@example.com', '--keywords', 'react', '--min-hourly', ''], names: '--min-hourly' },
    { argv: ['a@example.com', '--keywords', 'react', '--min-currency', 'dollars'], names: '--min-currency' },
    { argv: ['a@example.com', '--keywords', 'react', '--colour', 'blue'], names: '--colour' },
    { argv: ['a@example.com', 'b@example.com', '--keywords', 'react'], names: '"b@example.com"' },
    { argv: ['--keywords', 'react'], names: '<email>' },
    {
      argv: ['a@example.com', '--keywords', 'react, <script>alert(1)</script>'],
      names: `--keywords: each keyword may use only letters, digits, spaces and + # . - / & ' ("<" is not allowed)`,
    },
    {
      argv: ['a@example.com', '--keywords', 're\u200bact'],
      names: `--keywords: each keyword may use only letters, digits, spaces and + # . - / & ' (U+200B, an invisible character, is not allowed)`,
    },
    { argv: ['a@example.com', '--keywords', 'react', '--excludes', 'php\u001b[0m'], names: '--excludes: each exclude may use only' },
    { argv: ['a@example.com', '--keywords', 'c++; ++'], names: `--keywords: each keyword needs a letter or digit: "++"` },
  ])('rejects $argv naming $names: exit 2, nothing written', async ({ argv, names }) => {
    const run = await fx.cli(['users', 'add', ...argv]);

    expect(run.code).toBe(2);
    expect(run.err[0]).toContain(names);
    expect(run.out).toEqual([]);
    expect(run.opened).toBe(false);
    expect(await fx.users()).toEqual([]);
  });

  it('takes words in any script and the punctuation of real skills', async () => {
    const run = await fx.cli([
      'users',
      'add',
      'ivan@example.com',
      '--keywords',
      "Разработчик, 開発, C++, C#, node.js, ui/ux, R&D, o'reilly",
    ]);
    expect(run.code).toBe(0);
    expect((await fx.users())[0].keywords).toEqual(['разработчик', '開発', 'c++', 'c#', 'node.js', 'ui/ux', 'r&d', "o'reilly"]);
  });

  it('is a plain function of a context and parsed arguments', async () => {
    const parsed = parseUsersAddArgs(['lea@example.com', '--keywords', 'Figma, UI design']);
    if (parsed.kind !== 'args') throw new Error(`unexpected ${parsed.kind}`);
    const ctx = fx.ctx();

    expect(await usersAdd(ctx, parsed.args)).toBe(0);
    expect(ctx.lines).toEqual(['created lea@example.com (instant; keywords: figma, ui design)']);
  });

  it('prints its help with exit 0, without opening the store', async () => {
    const run = await fx.cli(['users', 'add', '--help']);
    expect(run).toMatchObject({ code: 0, opened: false });
    expect(run.out[0]).toMatch(/^Usage: scout users add <email> \(--keywords <list> \[--excludes <list>\] \| --query <query>\)/);
  });
});
