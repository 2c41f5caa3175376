/**
 * The shell of the small server-rendered pages a subscriber reaches from a signed link
 * (unsubscribe now; confirm and preferences later): plain HTML, inline CSS, no script.
 * Every value that reaches the markup goes through escapeHtml.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ENTITIES[c]);

/** Trusted markup, built only by this module's callers from escaped parts. */
export type Html = { readonly html: string };

/** A tagged template that escapes every interpolated string; nested `html` fragments pass through. */
export function html(strings: TemplateStringsArray, ...values: (string | number | Html | Html[] | null | undefined)[]): Html {
  let out = strings[0];
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return { html: out };
}

const render = (value: string | number | Html | Html[] | null | undefined): string => {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => v.html).join('');
  if (typeof value === 'object') return value.html;
  return escapeHtml(String(value));
};

const STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--text:#111827;--muted:#4b5563;--line:#e5e7eb;--accent:#1d4ed8;--accent-text:#fff;--danger:#b91c1c}
@media (prefers-color-scheme:dark){:root{--bg:#0b0f17;--card:#121826;--text:#f3f4f6;--muted:#9ca3af;--line:#1f2937;--accent:#60a5fa;--accent-text:#0b0f17;--danger:#f87171}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:24px;background:var(--bg);color:var(--text);font:16px/1.55 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif}
main{width:100%;max-width:480px;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:32px 28px}
.brand{margin:0 0 20px;font-size:13px;font-weight:600;letter-spacing:.08em;text-transform:uppercase;color:var(--muted)}
.brand a{color:inherit;text-decoration:none}
h1{margin:0 0 12px;font-size:22px;line-height:1.3}
p{margin:0 0 14px;color:var(--muted)}
.error h1{color:var(--danger)}
form{margin:24px 0 0}
button{font:inherit;font-weight:600;padding:11px 20px;border:0;border-radius:8px;background:var(--accent);color:var(--accent-text);cursor:pointer}
button:hover{filter:brightness(1.08)}
button:focus-visible,a:focus-visible{outline:3px solid var(--accent);outline-offset:3px}
.fine{margin-top:24px;font-size:13px}
.fine a{color:var(--muted)}
`.trim();

export type Page = {
  status: number;
  title: string;
  body: Html;
  tone?: 'normal' | 'error';
  /** Extra CSS for this page's own parts (forms), added to the head after the shell's. */
  styles?: string;
};

/**
 * A complete response. The URL that led here carries a credential (the token), so the page is
 * never cached, never indexed, never leaks it in a Referer, and may only post back to itself.
 */
export function htmlPageResponse(page: Page): Response {
  const doc = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${page.title} · Scout</title>
<style>${{ html: STYLE }}</style>${page.styles ? { html: `\n<style>${page.styles}</style>` } : null}
</head>
<body>
<main class="${page.tone === 'error' ? 'error' : 'normal'}">
<p class="brand"><a href="/">Scout</a></p>
${page.body}
</main>
</body>
</html>
`;
  return new Response(doc.html, {
    status: page.status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-robots-tag': 'noindex, nofollow',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    },
  });
}

/** A page that says why something did not happen; nothing was changed. */
export function errorPage(input: { status: number; title: string; message: Html }): Response {
  return htmlPageResponse({
    status: input.status,
    title: input.title,
    tone: 'error',
    body: html`<h1>${input.title}</h1>\n${input.message}`,
  });
}

/** Our fault, not the link's: `couldNot` says what failed, and the visitor may try again. */
export function serverErrorPage(couldNot: string): Response {
  return htmlPageResponse({
    status: 500,
    title: 'Something went wrong',
    tone: 'error',
    body: html`<h1>Something went wrong on our side</h1>
<p>${couldNot} Please try the link again in a minute.</p>`,
  });
}
