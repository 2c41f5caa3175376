import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_POLICY, securityHeaders } from '../../lib/http/security-headers';
import { FORM_SCRIPT } from '../../lib/http/form-script';
import { STYLESHEET } from '../../lib/http/stylesheet';
import { FAVICON_ICO } from '../../lib/http/favicon';
import { startAppUnderNext, type AppUnderNext } from '../support/app-under-next';

let app: AppUnderNext;

beforeAll(async () => {
  app = await startAppUnderNext();
}, 240_000);

afterAll(async () => app?.stop());

/** Every page a browser is sent to: each is answered by the one shell (lib/http/page.tsx). */
const PAGES = [
  '/',
  '/no-such-page',
  '/confirm?token=not-a-token',
  '/preferences?token=not-a-token',
  '/unsubscribe?token=not-a-token',
  '/unsubscribe/undo?token=not-a-token',
  '/not-a-fit?token=not-a-token',
  '/archive?token=not-a-token',
  '/admin',
];

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
    expect(csp).toBe(PAGE_POLICY);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it.each(PAGES)('GET %s is a page of the one shell: its policy, its stylesheet, its icon, no inline script', async (path) => {
    const res = await fetch(`${app.server.url}${path}`, { redirect: 'manual' });
    const html = await res.text();
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(PAGE_POLICY);
    expect(html.startsWith('<!doctype html><html lang="en">')).toBe(true);
    expect(html).toContain(`<link rel="stylesheet" href="${STYLESHEET}"/>`);
    expect(html).toContain(`<link rel="icon" href="${FAVICON_ICO}" sizes="32x32"/>`);
    // No Next page runtime: a script is the form script, from Scout's own files, or none.
    for (const [tag] of html.matchAll(/<script\b[^>]*>/g)) expect(tag).toBe(`<script src="${FORM_SCRIPT}" defer="">`);
    expect(html).not.toContain('/_next/');
  });

  it('the landing page loads the form script, which is there; it is rendered per request, and HEAD answers as GET', async () => {
    const html = await (await fetch(`${app.server.url}/`)).text();
    expect(html).toContain(`<script src="${FORM_SCRIPT}" defer=""></script>`);
    expect(html).toContain('name="email"');
    const script = await fetch(`${app.server.url}${FORM_SCRIPT}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await script.text()).length).toBeGreaterThan(1000);
    const head = await fetch(`${app.server.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-control')).toBe('no-store');
  });

  it.each(['GET', 'POST', 'DELETE'])('%s of an unknown path: Scout’s own 404 page', async (method) => {
    const res = await fetch(`${app.server.url}/no-such-page/deeper`, { method, body: method === 'POST' ? 'x=1' : undefined });
    const html = await res.text();
    expect(res.status).toBe(404);
    expect(html).toContain('Page not found');
    expect(res.headers.get('content-security-policy')).toBe(PAGE_POLICY);
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
    expect(securityHeaders({ https: true })['strict-transport-security']).toMatch(/^max-age=\d+/);
    expect(securityHeaders({ https: false })).not.toHaveProperty('strict-transport-security');
  });
});
