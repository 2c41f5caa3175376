import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { ErrorPage, Page, pageResponse, PAGE_POLICY } from '../../lib/http/page';
import { FORM_SCRIPT } from '../../lib/http/form-script';
import { STYLESHEET } from '../../lib/http/stylesheet';
import { FAVICON_ICO, FAVICON_SVG } from '../../lib/http/favicon';

describe('the page shell', () => {
  it('escapes every value React renders, text and attributes alike', async () => {
    const name = '<script>alert(1)</script>';
    const response = await pageResponse(
      <Page title={'"><script>x</script>'}>
        <p title={`"${name}`}>{name}</p>
      </Page>,
      { status: 200 },
    );
    const text = await response.text();
    expect(text).toContain('<title>&quot;&gt;&lt;script&gt;x&lt;/script&gt; · Scout</title>');
    expect(text).toContain('<p title="&quot;&lt;script&gt;alert(1)&lt;/script&gt;">&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(text).not.toContain('<script');
  });

  it('a page is a whole document that loads the one stylesheet and forbids inline scripts, caching, framing and referrers', async () => {
    const response = await pageResponse(
      <ErrorPage title="Nope">
        <p>Nothing happened.</p>
      </ErrorPage>,
      { status: 400, headers: { 'retry-after': '30' }, cookies: ['a=1; Path=/', 'b=2; Path=/'] },
    );
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(text.startsWith('<!doctype html><html lang="en">')).toBe(true);
    expect(text).toContain(`<link rel="stylesheet" href="${STYLESHEET}"/>`);
    expect(text).toContain('<meta name="referrer" content="no-referrer"/>');
    expect(text).toContain('<main class="error">');
    expect(text).not.toContain('<style');
    expect(text).not.toContain(' style=');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('retry-after')).toBe('30');
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    const csp = response.headers.get('content-security-policy');
    expect(csp).toBe(PAGE_POLICY);
    expect(csp).toContain("default-src 'none'");
    // Scripts from Scout's own files only: no inline script, no eval, no nonce to leak.
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('nonce-');
    expect(csp).not.toContain('unsafe-eval');
    // Inline style attributes for the landing page's sample card (the emails' own card); a style runs no code.
    expect(csp).toContain("style-src 'self' 'unsafe-inline';");
    expect(csp).toContain("frame-ancestors 'none'");
    // A page that asks for no script loads none.
    expect(text).not.toContain('<script');
  });

  it('a page links the icon, and its policy lets it load from Scout: no page asks for /favicon.ico in vain', async () => {
    const text = await (await pageResponse(<Page title="Icon">x</Page>, { status: 200 })).text();
    expect(text).toContain(`<link rel="icon" href="${FAVICON_ICO}" sizes="32x32"/>`);
    expect(text).toContain(`<link rel="icon" href="${FAVICON_SVG}" type="image/svg+xml"/>`);
    expect(PAGE_POLICY).toContain("img-src 'self'");
    // The files are there, where the links and browsers look (public/ is served at the root).
    const ico = await readFile(new URL(`../../public${FAVICON_ICO}`, import.meta.url));
    expect([...ico.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(ico.readUInt16LE(4)).toBeGreaterThan(0);
    expect(await readFile(new URL(`../../public${FAVICON_SVG}`, import.meta.url), 'utf8')).toMatch(
      /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/,
    );
  });

  it('a page that asks for the form script loads that one static file, under the same policy: scripts and fetches from Scout only', async () => {
    const response = await pageResponse(
      <Page title="Form" formScript>
        <p>x</p>
      </Page>,
      { status: 200 },
    );
    const text = await response.text();
    expect([...text.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([`<script src="${FORM_SCRIPT}" defer="">`]);
    expect(text).toContain(`<script src="${FORM_SCRIPT}" defer=""></script>`);
    const csp = response.headers.get('content-security-policy');
    expect(csp).toBe(PAGE_POLICY);
    expect(csp).toContain("connect-src 'self';");
  });

  it('only the landing page may be indexed: every other page says noindex in its head and its headers', async () => {
    const landing = await pageResponse(
      <Page title="Home" layout="site" description="What Scout is.">
        x
      </Page>,
      { status: 200, indexable: true },
    );
    const text = await landing.text();
    expect(text).toContain('<meta name="description" content="What Scout is."/>');
    expect(text).not.toContain('noindex');
    expect(landing.headers.get('x-robots-tag')).toBeNull();
    expect(text).toContain('<body class="site"><a class="skip-link" href="#main">');
    expect(text).toContain('<footer class="site-footer">');
    const other = await (await pageResponse(<Page title="Other">x</Page>, { status: 200 })).text();
    expect(other).toContain('<meta name="robots" content="noindex, nofollow"/>');
  });

  it('extra headers cannot replace the security headers', async () => {
    const response = await pageResponse(<Page title="x">x</Page>, {
      status: 200,
      headers: { 'cache-control': 'public, max-age=3600', 'content-security-policy': 'default-src *' },
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toBe(PAGE_POLICY);
  });
});
