import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';

let server: FeedServer;
beforeEach(async () => {
  server = await startFeedServer({ port: 0 });
});
afterEach(async () => server.close());

describe('the sample source server: POST and routes answered by code', () => {
  it('a fixed answer at an API path is served to a POST too (a GraphQL endpoint), and the method is logged', async () => {
    server.setFeed('/graphql', { body: '{"data":{}}', contentType: 'application/json' });
    const response = await fetch(`${server.url}/graphql`, { method: 'POST', body: '{"query":"{}"}' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"data":{}}');
    expect(server.requests().at(-1)).toMatchObject({ method: 'POST', path: '/graphql' });
  });

  it('a handler sees the method, headers and body, and its answer is served with its status', async () => {
    server.setHandler('/token', ({ method, headers, body }) => ({
      status: 400,
      body: JSON.stringify({ method, type: headers['content-type'], body }),
      contentType: 'application/json',
    }));
    const response = await fetch(`${server.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ method: 'POST', type: 'application/x-www-form-urlencoded', body: 'grant_type=refresh_token' });
  });

  it('the later of setFeed and setHandler at a path wins', async () => {
    server.setHandler('/x', () => ({ body: 'handler', contentType: 'text/plain' }));
    server.setFeed('/x', { body: 'feed', contentType: 'text/plain' });
    expect(await (await fetch(`${server.url}/x`)).text()).toBe('feed');
    server.setHandler('/x', () => ({ body: 'handler again', contentType: 'text/plain' }));
    expect(await (await fetch(`${server.url}/x`)).text()).toBe('handler again');
  });

  it('other methods are still refused with 405', async () => {
    const response = await fetch(server.feedUrl, { method: 'PUT', body: 'x' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it("carries every sample kind's routes: the Upwork fake's token endpoint refuses an unknown client", async () => {
    const response = await fetch(`${server.url}/api/v3/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=x&client_id=nobody&client_secret=nothing',
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
    expect((await fetch(`${server.url}/graphql`, { method: 'POST', body: '{}' })).status).toBe(401);
  });
});
