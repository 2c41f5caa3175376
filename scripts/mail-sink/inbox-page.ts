import type { SinkMessage } from './types';

/** Enough for a human skimming a dev inbox; the JSON routes are there for everything else. */
export const INBOX_PAGE_LIMIT = 200;

/**
 * Email content is untrusted (job text ends up in it), so the page itself runs nothing and
 * loads nothing off loopback: remote images in an email would otherwise leak requests.
 */
export const INBOX_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-src 'self'; form-action 'self'; base-uri 'none'";

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Safe both in text and inside a double-quoted attribute, which is what srcdoc needs. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (ch) => ENTITIES[ch]);

const row = (label: string, value: string) => `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`;

function renderMessage(message: SinkMessage): string {
  const rows = [
    row('to', message.to.join(', ')),
    message.cc.length ? row('cc', message.cc.join(', ')) : '',
    message.bcc.length ? row('bcc', message.bcc.join(', ')) : '',
    row('from', message.from),
    message.replyTo.length ? row('reply-to', message.replyTo.join(', ')) : '',
    row('received', message.receivedAt),
    row('id', message.id),
    row('idempotency key', message.idempotencyKey ?? '—'),
    row('api key', message.apiKey),
    message.batch ? row('via', 'batch') : '',
    ...Object.entries(message.headers).map(([name, value]) => row(name, value)),
    ...message.tags.map((tag) => row(`tag ${tag.name}`, tag.value)),
  ].join('');
  // An empty sandbox attribute grants nothing: no scripts, no forms, no same-origin access.
  const html = message.html === null ? '' : `<iframe sandbox title="HTML body" srcdoc="${escapeHtml(message.html)}"></iframe>`;
  const text = message.text === null ? '' : `<pre>${escapeHtml(message.text)}</pre>`;
  return `<article><h2>${escapeHtml(message.subject)}</h2><table>${rows}</table>${html}${text}</article>`;
}

/** `messages` oldest first, as stored; the page shows the newest first. */
export function renderInboxPage(messages: SinkMessage[], filter: { to?: string }): string {
  const newest = messages.slice(-INBOX_PAGE_LIMIT).reverse();
  const shown = messages.length > newest.length ? `the newest ${newest.length} of ${messages.length}` : String(messages.length);
  const to = filter.to ?? '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Scout mail sink</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem auto;max-width:60rem;padding:0 1rem;color:#222}
article{border:1px solid #ccc;border-radius:6px;padding:.75rem 1rem;margin:1rem 0}
h2{font-size:1.1rem;margin:.2rem 0 .5rem}
table{border-collapse:collapse;font-size:13px}
th{text-align:left;color:#666;font-weight:normal;padding-right:1rem;vertical-align:top;white-space:nowrap}
td{word-break:break-all}
iframe{width:100%;height:320px;border:1px solid #ddd;margin-top:.5rem;resize:vertical;overflow:auto;background:#fff}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem;margin-top:.5rem}
</style></head><body>
<h1>Scout mail sink</h1>
<form method="get" action="/"><label>to <input name="to" value="${escapeHtml(to)}" placeholder="someone@example.com"></label> <button>filter</button> <a href="/">all</a></form>
<p>${escapeHtml(shown)} message(s)${to ? ` to ${escapeHtml(to)}` : ''}, newest first.</p>
${newest.map(renderMessage).join('\n')}
</body></html>
`;
}
