import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { chat, posting, subscriber, verdictRequest } from './fake-fixture';

const request = verdictRequest({ subscriber: subscriber(), postings: [posting('j1', 'React dev', 'Remote')] });

describe('model fake: CLI', () => {
  it('prints its URL, serves, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/model-fake/main.ts', '--port', '0', '--model', 'm-1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    try {
      const [firstLine] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const models = await fetch(`${firstLine}/v1/models`, { headers: { authorization: 'Bearer sk-cli' } });
      expect(await models.json()).toMatchObject({ data: [{ id: 'm-1' }] });
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  });

  it('refuses a bad port with exit code 2', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/model-fake/main.ts', '--port', 'nope'], { stdio: 'ignore' });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
  });

  it('--delay-ms holds every answer that long', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/model-fake/main.ts', '--port', '0', '--delay-ms', '150'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    try {
      const [url] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const started = performance.now();
      const answer = await chat(`${url}/v1`, 'sk-cli-delay', request);
      expect(answer.status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    } finally {
      child.kill('SIGTERM');
    }
    await exited;
  });

  it('refuses a bad --delay-ms with exit code 2', async () => {
    for (const delay of ['-5', 'soon', '1.5']) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/model-fake/main.ts', '--port', '0', `--delay-ms=${delay}`], {
        stdio: 'ignore',
      });
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(2);
    }
  });
});
