import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securityHeaders } from '../../lib/http/security-headers';
import { startAppUnderNext, type AppUnderNext } from '../support/app-under-next';

let app: AppUnderNext;

beforeAll(async () => {
  app = await startAppUnderNext();
}, 240_000);

afterAll(async () => app?.stop());

/** Every kind of response the app gives a browser: pages, token pages, the ops page, a 404, the API. */
const ROUTES: { method: 'GET' | 'POST'; path: string }[] = [
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/no-such-page' },
  { method: 'GET', path: '/confirm?token=not-a-token' },
  { method: 'GET', path: '/preferences?token=not-a-token' },
  { method: 'GET', path: '/unsubscribe?token=not-a-token' },
  { method: 'GET', path: '/not-a-fit?token=not-a-token' },
  { method: 'GET', path: '/archive?token=not-a-token' },
  { method: 'GET', path: '/feed?token=not-a-token' },
  { method: 'GET', path: '/admin' },
  { method: 'GET', path: '/api/cron' },
  { method: 'POST', path: '/api/signup' },
  { method: 'POST', path: '/api/preview' },
];

describe('security headers on every response', () => {
  it.each(ROUTES)('$method $path: no framing, no sniffing, no referrer, a content security policy', async ({ method, path }) => {
    const res = await fetch(`${app.server.url}${path}`, {
      method,
      redirect: 'manual',
      headers: { 'content-type': 'application/json' },
      body: method === 'POST' ? '{}' : undefined,
    });
    await res.arrayBuffer();
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/(default-src 'none'|script-src 'self' 'nonce-)/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it("the landing page runs only scripts stamped with this response's nonce, and each response has its own", async () => {
    const pages = await Promise.all([1, 2].map(() => fetch(`${app.server.url}/`)));
    const nonces = await Promise.all(
      pages.map(async (res) => {
        const html = await res.text();
        const nonce = /'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
        expect(nonce).toBeDefined();
        const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
        expect(scripts.length).toBeGreaterThan(0);
        for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
        return nonce;
      }),
    );
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it.each(['/archive?token=not-a-token', '/feed?token=not-a-token'])('%s: kept by no cache on the way', async (path) => {
    const res = await fetch(`${app.server.url}${path}`);
    await res.arrayBuffer();
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('/favicon.ico is there (browsers ask for it unasked), and the landing page and a token page link the icon', async () => {
    const icon = await fetch(`${app.server.url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect([...new Uint8Array(await icon.arrayBuffer()).subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    const svg = await fetch(`${app.server.url}/favicon.svg`);
    expect(svg.status).toBe(200);
    await svg.arrayBuffer();
    for (const path of ['/', '/unsubscribe?token=not-a-token']) {
      const html = await (await fetch(`${app.server.url}${path}`)).text();
      expect(html, path).toMatch(/<link rel="icon" href="\/favicon\.ico"/);
    }
  });

  it('HSTS only when the request came over https', () => {
    expect(securityHeaders({ nonce: 'n', https: true })['strict-transport-security']).toMatch(/^max-age=\d+/);
    expect(securityHeaders({ nonce: 'n', https: false })).not.toHaveProperty('strict-transport-security');
  });
});
