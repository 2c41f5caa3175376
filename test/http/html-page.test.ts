import { describe, expect, it } from 'vitest';
import { escapeHtml, html, htmlPageResponse } from '../../lib/http/html-page';

describe('html', () => {
  it('escapes every interpolated string and passes nested fragments through', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    const name = '<script>alert(1)</script>';
    const fragment = html`<p>${name}</p>`;
    expect(html`<div>${fragment}${[html`<i>${'&'}</i>`]}${null}</div>`.html).toBe(
      '<div><p>&lt;script&gt;alert(1)&lt;/script&gt;</p><i>&amp;</i></div>',
    );
  });

  it('a page escapes its title and forbids scripts, caching and referrers', async () => {
    const response = htmlPageResponse({ status: 400, title: '"><script>x</script>', body: html`<h1>Hi</h1>` });
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(text).toContain('<title>&quot;&gt;&lt;script&gt;x&lt;/script&gt; · Scout</title>');
    expect(text).not.toContain('<script');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});
