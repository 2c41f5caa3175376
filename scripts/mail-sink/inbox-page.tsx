import { renderToStaticMarkup } from 'react-dom/server';
import type { SinkMessage } from './types';

/** Enough for a human skimming a dev inbox; the JSON routes are there for everything else. */
export const INBOX_PAGE_LIMIT = 200;

/**
 * Email content is untrusted (job text ends up in it), so the page itself runs nothing and
 * loads nothing off loopback: remote images in an email would otherwise leak requests. React
 * escapes every value, in text and in attributes (srcdoc included).
 */
export const INBOX_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-src 'self'; form-action 'self'; base-uri 'none'";

/** The dev tool's own look, not Scout's: the sink is its own server, with no stylesheet to serve. */
const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem auto;max-width:60rem;padding:0 1rem;color:#222}
article{border:1px solid #ccc;border-radius:6px;padding:.75rem 1rem;margin:1rem 0}
h2{font-size:1.1rem;margin:.2rem 0 .5rem}
table{border-collapse:collapse;font-size:13px}
th{text-align:left;color:#666;font-weight:normal;padding-right:1rem;vertical-align:top;white-space:nowrap}
td{word-break:break-all}
iframe{width:100%;height:320px;border:1px solid #ddd;margin-top:.5rem;resize:vertical;overflow:auto;background:#fff}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem;margin-top:.5rem}
`;

function Message({ message }: { message: SinkMessage }) {
  const rows: [string, string][] = [
    ['to', message.to.join(', ')],
    ...(message.cc.length ? [['cc', message.cc.join(', ')] as [string, string]] : []),
    ...(message.bcc.length ? [['bcc', message.bcc.join(', ')] as [string, string]] : []),
    ['from', message.from],
    ...(message.replyTo.length ? [['reply-to', message.replyTo.join(', ')] as [string, string]] : []),
    ['received', message.receivedAt],
    ['id', message.id],
    ['idempotency key', message.idempotencyKey ?? '—'],
    ['api key', message.apiKey],
    ...(message.batch ? [['via', 'batch'] as [string, string]] : []),
    ...Object.entries(message.headers),
    ...message.tags.map((tag): [string, string] => [`tag ${tag.name}`, tag.value]),
  ];
  return (
    <article>
      <h2>{message.subject}</h2>
      <table>
        <tbody>
          {rows.map(([label, value], i) => (
            <tr key={i}>
              <th>{label}</th>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {/* An empty sandbox attribute grants nothing: no scripts, no forms, no same-origin access. */}
      {message.html === null ? null : <iframe sandbox="" title="HTML body" srcDoc={message.html} />}
      {message.text === null ? null : <pre>{message.text}</pre>}
    </article>
  );
}

/** `messages` oldest first, as stored; the page shows the newest first. */
export function renderInboxPage(messages: SinkMessage[], filter: { to?: string }): string {
  const newest = messages.slice(-INBOX_PAGE_LIMIT).reverse();
  const shown = messages.length > newest.length ? `the newest ${newest.length} of ${messages.length}` : String(messages.length);
  const to = filter.to ?? '';
  const page = (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <title>Scout mail sink</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <h1>Scout mail sink</h1>
        <form method="get" action="/">
          <label>
            to <input name="to" defaultValue={to} placeholder="someone@example.com" />
          </label>{' '}
          <button>filter</button> <a href="/">all</a>
        </form>
        <p>
          {shown} message(s){to ? ` to ${to}` : ''}, newest first.
        </p>
        {newest.map((message) => (
          <Message key={message.id} message={message} />
        ))}
      </body>
    </html>
  );
  return `<!doctype html>${renderToStaticMarkup(page)}`;
}
