import { describe, expect, it } from 'vitest';
import { chat, openFake, posting, subscriber, verdictRequest, verdictsOf } from './fake-fixture';

const request = verdictRequest({ subscriber: subscriber(), postings: [posting('j1', 'React dev', 'Remote')] });

async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await call();
  return { value, ms: performance.now() - started };
}

describe('model fake: the fixed delay (delayMs, --delay-ms)', () => {
  it('holds every answer for every key, answers the same, and records no fault', async () => {
    const prompt = await openFake();
    const expected = await verdictsOf(await chat(prompt.baseUrl, 'sk-any', request));

    const fake = await openFake({ delayMs: 150 });
    expect(fake.delayMs).toBe(150);
    for (const key of ['sk-a', 'sk-b']) {
      const { value, ms } = await timed(() => chat(fake.baseUrl, key, request));
      expect(ms).toBeGreaterThanOrEqual(140);
      expect(await verdictsOf(value)).toEqual(expected);
      // A latency, not a fault: a test counting faults must not see the bench's delay as one.
      expect(fake.requests(key).map((r) => r.fault)).toEqual([null]);
    }
  });

  it('is off by default', async () => {
    const fake = await openFake();
    expect(fake.delayMs).toBe(0);
    const { ms } = await timed(() => chat(fake.baseUrl, 'sk-fast', request));
    expect(ms).toBeLessThan(140);
  });

  it('adds to a slow fault instead of replacing it', async () => {
    const fake = await openFake({ delayMs: 100 });
    fake.setFaults('sk-slow', [{ mode: 'slow', ms: 100, count: 1 }]);
    const { ms } = await timed(() => chat(fake.baseUrl, 'sk-slow', request));
    expect(ms).toBeGreaterThanOrEqual(190);
    expect(fake.requests('sk-slow').map((r) => r.fault)).toEqual(['slow']);
  });

  it('holds a failing answer too: a 500 comes as late as a verdict', async () => {
    const fake = await openFake({ delayMs: 150 });
    fake.setFaults('sk-500', [{ mode: '500', count: 1 }]);
    const { value, ms } = await timed(() => chat(fake.baseUrl, 'sk-500', request));
    expect(value.status).toBe(500);
    expect(ms).toBeGreaterThanOrEqual(140);
  });

  it('refuses a delay that is negative, fractional or longer than ten minutes', async () => {
    for (const delayMs of [-1, 2.5, 600_001, Number.NaN]) {
      await expect(openFake({ delayMs })).rejects.toThrow(TypeError);
    }
  });
});
