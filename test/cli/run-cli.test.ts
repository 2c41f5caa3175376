import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/runtime/config';
import { runCli } from '../../scripts/cli/run-cli';

/** Routing alone: the store is never opened, so none is needed. */
async function cli(
  argv: string[],
  openDb: () => never = () => {
    throw new Error('the store must not be opened');
  },
) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    openDb,
    digestHourUtc: () => 8,
    appDeps: () => {
      throw new Error('no cycle here');
    },
    now: () => new Date(0),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('scout: routing and help', () => {
  it.each([[['--help']], [['-h']], [['help']]])('%j prints the commands, exit 0', async (argv) => {
    const run = await cli(argv);
    expect(run.code).toBe(0);
    for (const command of ['users add', 'users import', 'users list', 'users pause', 'users resume']) expect(run.out).toContain(command);
  });

  it('each level has its own --help', async () => {
    expect(await cli(['users', '--help'])).toMatchObject({ code: 0, out: expect.stringMatching(/^Usage: scout users <command>/) });
    for (const name of ['add', 'import', 'list', 'pause', 'resume']) {
      expect(await cli(['users', name, '--help'])).toMatchObject({
        code: 0,
        out: expect.stringMatching(new RegExp(`^Usage: scout users ${name}`)),
      });
    }
  });

  it.each([
    { argv: [], says: 'Usage: scout <command>' },
    { argv: ['deploy'], says: 'unknown command "deploy"' },
    { argv: ['users'], says: 'Usage: scout users <command>' },
    { argv: ['users', 'delete', 'a@example.com'], says: 'unknown command "users delete"' },
  ])('$argv: usage on stderr, exit 2', async ({ argv, says }) => {
    const run = await cli(argv);
    expect(run).toMatchObject({ code: 2, out: '' });
    expect(run.err).toContain(says);
  });

  it('missing configuration stops before anything runs, naming the variable, exit 2', async () => {
    const run = await cli(['users', 'list'], () => {
      throw new ConfigError(['FIREBASE_PROJECT_ID is required']);
    });
    expect(run.code).toBe(2);
    expect(run.err).toContain('FIREBASE_PROJECT_ID is required');
  });
});
