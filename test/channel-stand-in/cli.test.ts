import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

describe('channel stand-in: CLI', () => {
  it('prints its URL, serves the platforms, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/channel-stand-in/cli.ts', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    try {
      const [firstLine] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await (await fetch(`${firstLine}/health`)).text()).toBe('ok');
      const slack = await fetch(`${firstLine}/services/T1/B1/x`, { method: 'POST', body: JSON.stringify({ text: 'hi' }) });
      expect(await slack.text()).toBe('ok');
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  });
});
