import { describe, expect, it } from 'vitest';
import { pageHandler } from '../../lib/http/page-handler';

const page = (text: string, status = 200) => Promise.resolve(new Response(text, { status }));

describe('pageHandler', () => {
  const lines: [string, unknown][] = [];
  const deps = { log: (event: string, fields?: unknown) => lines.push([event, fields]) };
  const handle = pageHandler<typeof deps>({
    name: 'thing',
    methods: {
      GET: () => page('shown'),
      POST: async (request) => {
        if (new URL(request.url).searchParams.has('boom')) throw new Error('store down');
        return page('done');
      },
    },
    errorPage: () => page('our fault', 500),
  });

  it('dispatches on the method, answering HEAD as GET', async () => {
    expect(await (await handle(new Request('http://x/a'), deps)).text()).toBe('shown');
    expect((await handle(new Request('http://x/a', { method: 'HEAD' }), deps)).status).toBe(200);
    expect(await (await handle(new Request('http://x/a', { method: 'POST' }), deps)).text()).toBe('done');
  });

  it('any other method: 405 naming the allowed ones', async () => {
    const res = await handle(new Request('http://x/a', { method: 'PUT', body: 'x' }), deps);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    const postOnly = pageHandler({ name: 'p', methods: { POST: () => page('ok') }, errorPage: () => page('e', 500) });
    expect((await postOnly(new Request('http://x/a'), {})).headers.get('allow')).toBe('POST');
  });

  it("a thrown error is the route's error page, logged without the request's content", async () => {
    const res = await handle(new Request('http://x/a?boom=secret-token', { method: 'POST' }), deps);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('our fault');
    expect(lines).toEqual([['thing.error', { method: 'POST', error: 'store down' }]]);
  });
});
