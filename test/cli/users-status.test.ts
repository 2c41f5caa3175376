import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideStatus } from '../../lib/subscribers/set-subscriber-status';
import { createCliFixture, type CliFixture } from './cli-fixture';

let fx: CliFixture;
beforeEach(() => {
  fx = createCliFixture();
});
afterEach(() => fx.close());

const statusOf = async (email: string) => (await fx.users()).find((u) => u.email === email)?.status;

describe('scout users pause / resume', () => {
  it('pauses an active subscriber and resumes them', async () => {
    await fx.cli(['users', 'add', 'ana@example.com', '--keywords', 'react']);

    const pause = await fx.cli(['users', 'pause', 'ANA@example.com']);
    expect(pause).toMatchObject({ code: 0, out: ['paused ana@example.com (active → paused)'] });
    expect(await statusOf('ana@example.com')).toBe('paused');

    const again = await fx.cli(['users', 'pause', 'ana@example.com']);
    expect(again).toMatchObject({ code: 0, out: ['ana@example.com is already paused'] });

    const resume = await fx.cli(['users', 'resume', 'ana@example.com']);
    expect(resume).toMatchObject({ code: 0, out: ['resumed ana@example.com (paused → active)'] });
    const [user] = await fx.users();
    expect(user).toMatchObject({ status: 'active', updatedAt: fx.now });
  });

  it('resume never revives someone who unsubscribed, and pause cannot make them resumable', async () => {
    await fx.cli(['users', 'add', 'gone@example.com', '--keywords', 'react']);
    await fx.setStatus('gone@example.com', 'unsubscribed');

    const resume = await fx.cli(['users', 'resume', 'gone@example.com']);
    expect(resume.code).toBe(1);
    expect(resume.out[0]).toMatch(/^not resumed: gone@example\.com is unsubscribed/);
    expect(await statusOf('gone@example.com')).toBe('unsubscribed');

    const pause = await fx.cli(['users', 'pause', 'gone@example.com']);
    expect(pause.code).toBe(1);
    expect(await statusOf('gone@example.com')).toBe('unsubscribed');
  });

  it('resume does not skip the double opt-in of a pending subscriber', async () => {
    await fx.cli(['users', 'add', 'new@example.com', '--keywords', 'react']);
    await fx.setStatus('new@example.com', 'pending');

    const resume = await fx.cli(['users', 'resume', 'new@example.com']);

    expect(resume.code).toBe(1);
    expect(resume.out[0]).toMatch(/not confirmed/);
    expect(await statusOf('new@example.com')).toBe('pending');
  });

  it('an unknown email exits 1 and creates nothing', async () => {
    const run = await fx.cli(['users', 'pause', 'nobody@example.com']);
    expect(run).toMatchObject({ code: 1, out: ['no subscriber with email nobody@example.com'] });
    expect(await fx.users()).toEqual([]);
  });

  it('a bad email is a usage error: exit 2, store never opened', async () => {
    const run = await fx.cli(['users', 'resume', 'nobody']);
    expect(run).toMatchObject({ code: 2, opened: false });
    expect(run.err[0]).toBe('scout users resume: <email> "nobody" is not an email address');
  });

  it('moves only between active and paused', () => {
    expect(decideStatus('pause', 'active')).toEqual({ kind: 'change', to: 'paused' });
    expect(decideStatus('pause', 'paused')).toEqual({ kind: 'unchanged' });
    expect(decideStatus('resume', 'paused')).toEqual({ kind: 'change', to: 'active' });
    expect(decideStatus('resume', 'active')).toEqual({ kind: 'unchanged' });
    for (const action of ['pause', 'resume'] as const) {
      expect(decideStatus(action, 'unsubscribed').kind).toBe('refused');
      expect(decideStatus(action, 'pending').kind).toBe('refused');
    }
  });
});
