import { describe, expect, it, onTestFinished } from 'vitest';
import { startModelFakeProcess } from '../../scripts/bench/model-fake-process';
import { chat, posting, subscriber, verdictRequest } from '../model-fake/fake-fixture';

const request = verdictRequest({ subscriber: subscriber(), postings: [posting('j1', 'React dev', 'Remote')] });

describe('bench --ai: the model fake in its own process', () => {
  it('answers every request delayMs late and counts each key apart', async () => {
    const fake = await startModelFakeProcess({ delayMs: 150 });
    onTestFinished(() => fake.close());
    expect(fake.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    for (let i = 0; i < 2; i++) {
      const started = performance.now();
      expect((await chat(fake.baseUrl, 'sk-bench-run-1', { ...request, model: fake.model })).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    }
    expect(await fake.requestCount('sk-bench-run-1')).toBe(2);
    expect(await fake.requestCount('sk-bench-run-2')).toBe(0);
    await fake.clearRequests('sk-bench-run-1');
    expect(await fake.requestCount('sk-bench-run-1')).toBe(0);
  });

  it('close() stops it: nothing answers afterwards', async () => {
    const fake = await startModelFakeProcess({ delayMs: 0 });
    await fake.close();
    await expect(fake.requestCount('sk-any')).rejects.toThrow();
    await fake.close();
  });
});
