import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliFixture, type CliFixture } from './cli-fixture';

let fx: CliFixture;
beforeEach(() => {
  fx = createCliFixture();
});
afterEach(() => fx.close());

describe('scout users list', () => {
  it('prints a table sorted by email with the full email, status, mode and keywords', async () => {
    await fx.cli(['users', 'add', 'zoe@example.com', '--keywords', 'python, django', '--mode', 'daily']);
    await fx.cli(['users', 'add', 'ana@example.com', '--keywords', 'react', '--excludes', 'wordpress', '--min-budget', '500']);
    await fx.cli(['users', 'pause', 'zoe@example.com']);

    const run = await fx.cli(['users', 'list']);

    expect(run.code).toBe(0);
    expect(run.out).toEqual([
      'EMAIL            STATUS  MODE     MIN PAY           KEYWORDS',
      'ana@example.com  active  instant  $500 fixed-price  react (not: wordpress)',
      'zoe@example.com  paused  daily    -                 python, django',
      '',
      '2 subscribers (1 active, 1 paused)',
    ]);
  });

  it('--status keeps one status', async () => {
    await fx.cli(['users', 'add', 'ana@example.com', '--keywords', 'react']);
    await fx.cli(['users', 'add', 'zoe@example.com', '--keywords', 'vue']);
    await fx.cli(['users', 'pause', 'zoe@example.com']);

    const active = await fx.cli(['users', 'list', '--status', 'active']);
    expect(active.out.filter((l) => l.includes('@'))).toEqual([expect.stringMatching(/^ana@example\.com\s+active/)]);
    expect(active.out.at(-1)).toBe('1 active subscriber');

    expect((await fx.cli(['users', 'list', '--status', 'unsubscribed'])).out).toEqual(['no unsubscribed subscribers']);
  });

  it('rejects an unknown status naming --status, exit 2', async () => {
    const run = await fx.cli(['users', 'list', '--status', 'daily']);
    expect(run).toMatchObject({ code: 2, opened: false });
    expect(run.err[0]).toContain('--status must be one of pending, active, paused, unsubscribed');
  });
});
