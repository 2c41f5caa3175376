import { describe, expect, it } from 'vitest';
import { REFUSAL } from '../../scripts/model-fake/completion';
import { chat, openFake, posting, subscriber, verdictRequest, verdictsOf } from './fake-fixture';

const request = verdictRequest({ subscriber: subscriber(), postings: [posting('j1', 'React dev', 'Remote')] });

type Completion = { choices: { message: { content: string | null; refusal: string | null }; finish_reason: string }[] };

describe('model fake: injected faults', () => {
  it('slow: delays every answer by ms until cleared, and the answer is still right', async () => {
    const fake = await openFake();
    const expected = await verdictsOf(await chat(fake.baseUrl, 'sk-slow', request));
    fake.setFaults('sk-slow', [{ mode: 'slow', ms: 200 }]);
    for (let i = 0; i < 2; i++) {
      const started = performance.now();
      expect(await verdictsOf(await chat(fake.baseUrl, 'sk-slow', request))).toEqual(expected);
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    }
    fake.setFaults('sk-slow', []);
    const started = performance.now();
    await chat(fake.baseUrl, 'sk-slow', request);
    expect(performance.now() - started).toBeLessThan(190);
  });

  it('a client that gives up on a slow answer gets an abort, and the fake keeps serving', async () => {
    const fake = await openFake();
    fake.setFaults('sk-timeout', [{ mode: 'slow', ms: 5_000, count: 1 }]);
    const call = fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-timeout' },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(100),
    });
    await expect(call).rejects.toThrow();
    expect((await chat(fake.baseUrl, 'sk-timeout', request)).status).toBe(200);
  });

  it('500: the next count requests fail with a server_error, then it answers again', async () => {
    const fake = await openFake();
    fake.setFaults('sk-500', [{ mode: '500', count: 2 }]);
    for (let i = 0; i < 2; i++) {
      const failed = await chat(fake.baseUrl, 'sk-500', request);
      expect(failed.status).toBe(500);
      expect(await failed.json()).toMatchObject({ error: { type: 'server_error' } });
    }
    expect((await chat(fake.baseUrl, 'sk-500', request)).status).toBe(200);
  });

  it('429: rate_limit_exceeded with Retry-After in seconds', async () => {
    const fake = await openFake();
    fake.setFaults('sk-429', [{ mode: '429', retryAfterSeconds: 7, count: 1 }]);
    const limited = await chat(fake.baseUrl, 'sk-429', request);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await limited.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    expect((await chat(fake.baseUrl, 'sk-429', request)).status).toBe(200);
  });

  it('malformed: a 200 whose content is cut-off JSON', async () => {
    const fake = await openFake();
    fake.setFaults('sk-bad-json', [{ mode: 'malformed', count: 1 }]);
    const response = await chat(fake.baseUrl, 'sk-bad-json', request);
    expect(response.status).toBe(200);
    const content = ((await response.json()) as Completion).choices[0].message.content!;
    expect(content.startsWith('{"verdicts":')).toBe(true);
    expect(() => JSON.parse(content)).toThrow(SyntaxError);
  });

  it('refusal: message.refusal is set and content is null, as OpenAI structured outputs refuse', async () => {
    const fake = await openFake();
    fake.setFaults('sk-refuse', [{ mode: 'refusal' }]);
    for (let i = 0; i < 2; i++) {
      const body = (await (await chat(fake.baseUrl, 'sk-refuse', request)).json()) as Completion;
      expect(body.choices[0]).toMatchObject({ message: { content: null, refusal: REFUSAL }, finish_reason: 'stop' });
    }
  });

  it('drop: the connection closes without an answer, and the request is still recorded', async () => {
    const fake = await openFake();
    fake.setFaults('sk-drop', [{ mode: 'drop', count: 1 }]);
    await expect(chat(fake.baseUrl, 'sk-drop', request)).rejects.toThrow(TypeError);
    expect(fake.requests('sk-drop').map((r) => r.fault)).toEqual(['drop']);
    expect((await chat(fake.baseUrl, 'sk-drop', request)).status).toBe(200);
  });

  it('slow and a failure combine: a slow 500, once', async () => {
    const fake = await openFake();
    fake.setFaults('sk-combo', [
      { mode: 'slow', ms: 150, count: 1 },
      { mode: '500', count: 1 },
      { mode: '429', retryAfterSeconds: 1, count: 1 },
    ]);
    const started = performance.now();
    expect((await chat(fake.baseUrl, 'sk-combo', request)).status).toBe(500);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    // One failure per request, in the order set: the 429 waited its turn.
    expect((await chat(fake.baseUrl, 'sk-combo', request)).status).toBe(429);
    expect((await chat(fake.baseUrl, 'sk-combo', request)).status).toBe(200);
    expect(fake.requests('sk-combo').map((r) => r.fault)).toEqual(['500', '429', null]);
  });

  it('faults belong to one API key: another key in parallel is never touched', async () => {
    const fake = await openFake();
    fake.setFaults('sk-broken', [{ mode: '500' }]);
    const [broken, healthy] = await Promise.all([
      Promise.all([1, 2, 3].map(() => chat(fake.baseUrl, 'sk-broken', request))),
      Promise.all([1, 2, 3].map(() => chat(fake.baseUrl, 'sk-healthy', request))),
    ]);
    expect(broken.map((r) => r.status)).toEqual([500, 500, 500]);
    expect(healthy.map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('sets, reads and clears faults over HTTP, validating them', async () => {
    const fake = await openFake();
    const post = (body: unknown) => fetch(`${fake.url}/__faults`, { method: 'POST', body: JSON.stringify(body) });
    const read = async (key: string) => ((await (await fetch(`${fake.url}/__faults?apiKey=${key}`)).json()) as { faults: unknown }).faults;

    expect((await post({ apiKey: 'sk-h', faults: [{ mode: '429', retryAfterSeconds: 2, count: 3 }] })).status).toBe(200);
    expect((await chat(fake.baseUrl, 'sk-h', request)).status).toBe(429);
    expect(await read('sk-h')).toEqual([{ mode: '429', retryAfterSeconds: 2, count: 2 }]);
    expect(await read('sk-other')).toEqual([]);

    expect((await fetch(`${fake.url}/__faults?apiKey=sk-h`, { method: 'DELETE' })).status).toBe(200);
    expect((await chat(fake.baseUrl, 'sk-h', request)).status).toBe(200);

    for (const bad of [
      { apiKey: 'sk-h', faults: [{ mode: 'slow' }] },
      { apiKey: 'sk-h', faults: [{ mode: '429' }] },
      { apiKey: 'sk-h', faults: [{ mode: '503' }] },
      { apiKey: 'sk-h', faults: [{ mode: '500', count: 0 }] },
      { apiKey: 'sk-h', faults: [{ mode: 'drop', extra: true }] },
      { faults: [{ mode: '500' }] },
      { apiKey: 'sk-h' },
    ]) {
      expect((await post(bad)).status).toBe(422);
    }
    expect((await fetch(`${fake.url}/__faults`)).status).toBe(422);
    expect(() => fake.setFaults('sk-h', [{ mode: 'slow', ms: -1 }])).toThrow(TypeError);
  });
});
