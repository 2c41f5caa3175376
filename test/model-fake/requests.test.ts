import { describe, expect, it } from 'vitest';
import { chat, openFake, posting, subscriber, verdictRequest } from './fake-fixture';

const request = verdictRequest({ subscriber: subscriber(), postings: [posting('j1', 'React dev', 'Remote')] });

type Listing = { apiKey: string; requests: { receivedAt: string; body: unknown; fault: string | null }[] };

describe('model fake: recorded requests', () => {
  it('records every chat-completions body per key, oldest first, with the fault that answered it', async () => {
    const fake = await openFake({ now: () => Date.parse('2026-12-01T09:00:00Z') });
    fake.setFaults('sk-rec', [{ mode: '500', count: 1 }]);
    await chat(fake.baseUrl, 'sk-rec', request);
    await chat(fake.baseUrl, 'sk-rec', request);
    await chat(fake.baseUrl, 'sk-rec', '{not json');
    await chat(fake.baseUrl, 'sk-elsewhere', request);
    await fetch(`${fake.baseUrl}/models`, { headers: { authorization: 'Bearer sk-rec' } });

    const listing = (await (await fetch(`${fake.url}/__requests?apiKey=sk-rec`)).json()) as Listing;
    expect(listing).toEqual({
      apiKey: 'sk-rec',
      requests: [
        { receivedAt: '2026-12-01T09:00:00.000Z', body: request, fault: '500' },
        { receivedAt: '2026-12-01T09:00:00.000Z', body: request, fault: null },
        { receivedAt: '2026-12-01T09:00:00.000Z', body: '{not json', fault: null },
      ],
    });
    expect(fake.requests('sk-rec')).toEqual(listing.requests);
    expect(fake.requests('sk-elsewhere')).toHaveLength(1);
  });

  it('lets a test check that no email address left in any request', async () => {
    const fake = await openFake();
    await chat(fake.baseUrl, 'sk-privacy', request);
    const leaked = verdictRequest({ subscriber: subscriber({ about: 'mail me at ada@example.com' }), postings: [] });
    await chat(fake.baseUrl, 'sk-leaky', leaked);
    const hasAddress = (key: string) => fake.requests(key).some((r) => /[^\s@"]+@[^\s@"]+\.[a-z]{2,}/i.test(JSON.stringify(r.body)));
    expect(hasAddress('sk-privacy')).toBe(false);
    expect(hasAddress('sk-leaky')).toBe(true);
  });

  it('clears one key or all over HTTP, and needs a key to read', async () => {
    const fake = await openFake();
    await chat(fake.baseUrl, 'sk-1', request);
    await chat(fake.baseUrl, 'sk-2', request);
    expect((await fetch(`${fake.url}/__requests?apiKey=sk-1`, { method: 'DELETE' })).status).toBe(200);
    expect(fake.requests('sk-1')).toEqual([]);
    expect(fake.requests('sk-2')).toHaveLength(1);
    expect((await fetch(`${fake.url}/__requests`, { method: 'DELETE' })).status).toBe(200);
    expect(fake.requests('sk-2')).toEqual([]);
    expect((await fetch(`${fake.url}/__requests`)).status).toBe(422);
    expect((await fetch(`${fake.url}/__requests`, { method: 'POST' })).status).toBe(405);
  });

  it("counts a key's requests without sending their bodies, and needs a key", async () => {
    const fake = await openFake();
    fake.setFaults('sk-count', [{ mode: '500', count: 1 }]);
    await chat(fake.baseUrl, 'sk-count', request);
    await chat(fake.baseUrl, 'sk-count', request);
    await chat(fake.baseUrl, 'sk-other', request);
    const count = async (query: string) => (await fetch(`${fake.url}/__requests/count${query}`)).json();
    // A failed answer is still a request made: the count is what the server was asked, not what it answered.
    expect(await count('?apiKey=sk-count')).toEqual({ apiKey: 'sk-count', count: 2 });
    expect(await count('?apiKey=sk-nobody')).toEqual({ apiKey: 'sk-nobody', count: 0 });
    expect((await fetch(`${fake.url}/__requests/count`)).status).toBe(422);
    expect((await fetch(`${fake.url}/__requests/count?apiKey=sk-count`, { method: 'DELETE' })).status).toBe(405);
  });
});
