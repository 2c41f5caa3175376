import type { ReactNode } from 'react';
import { quotaNoticeText, type QuotaNotice } from '../ops/provider-quota';
import type { LoginLock } from '../ops/auth-failures';
import { Page, pageResponse } from '../http/page';
import { LOGIN_LIMIT } from './login-limit';

/**
 * What every page of /admin is made of: the response with the shell's headers, the UTC formatters,
 * and the small components (pills, tables, banners, the top bar, action buttons). Plain
 * server-rendered HTML that needs no script; every value — feed errors, posting titles,
 * subscriber keywords are all someone else's text — is escaped by React.
 */
/** Every admin page: the shell's headers (no-store, no-referrer, the strict CSP, X-Frame-Options) and the cookies to set. */
export const adminPageResponse = (page: ReactNode, init: { status: number; cookies?: string[]; retryAfterSec?: number }) =>
  pageResponse(page, {
    status: init.status,
    cookies: init.cookies,
    headers: init.retryAfterSec ? { 'retry-after': String(init.retryAfterSec) } : {},
  });

/** Every time on the page is UTC, to the second: what the logs and run ids say. */
export const utc = (d: Date | null) => (d ? `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)}` : '—');

export function ago(now: Date, d: Date | null): string {
  if (!d) return '';
  const ms = now.getTime() - d.getTime();
  const abs = Math.abs(ms);
  const span =
    abs < 60_000
      ? `${Math.round(abs / 1000)} s`
      : abs < 3_600_000
        ? `${Math.round(abs / 60_000)} min`
        : abs < 172_800_000
          ? `${(abs / 3_600_000).toFixed(abs < 36_000_000 ? 1 : 0)} h`
          : `${Math.round(abs / 86_400_000)} d`;
  return ms >= 0 ? `${span} ago` : `in ${span}`;
}

export function duration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export const TONES: Record<string, string> = {
  done: 'ok',
  ok: 'ok',
  sent: 'ok',
  active: 'ok',
  held: 'warn',
  running: 'warn',
  partial: 'warn',
  quota: 'bad',
  on: 'ok',
  off: 'quiet',
  spent: 'bad',
  pending: 'warn',
  sending: 'warn',
  queued: 'warn',
  'not-modified': 'ok',
  paused: 'warn',
  failed: 'bad',
  dead: 'bad',
  error: 'bad',
  unsubscribed: 'quiet',
  skipped: 'quiet',
  expired: 'quiet',
  never: 'quiet',
  // Source health (lib/feeds/source-health.ts).
  failing: 'warn',
  silent: 'warn',
  disabled: 'bad',
};

export const Pill = ({ word }: { word: string }) => <span className={`pill ${TONES[word] ?? 'quiet'}`}>{word}</span>;
export const When = ({ now, at }: { now: Date; at: Date | null }) => (
  <td className="when">
    {utc(at)}
    <span className="sub">{ago(now, at)}</span>
  </td>
);
/** A count at a glance; `bad` colours it while it is above 0. */
export function Tile({ n, label, bad = false }: { n: number; label: string; bad?: boolean }) {
  return (
    <div className={`tile${bad && n > 0 ? ' bad' : ''}`}>
      <span className="n">{n.toLocaleString('en-US')}</span>
      <span className="l">{label}</span>
    </div>
  );
}
export const Num = ({ n }: { n: number | string }) => <td className="num">{n}</td>;
export const Dash = () => <span className="muted">—</span>;
export const orDash = (v: string | null | undefined) => (v === null || v === undefined || v === '' ? '—' : v);
/** An error cell: someone else's text, escaped, in the danger colour; a quiet dash when there is none. */
export const ErrorCell = ({ text }: { text: string | null | undefined }) =>
  text ? (
    <td className="err">{text}</td>
  ) : (
    <td>
      <Dash />
    </td>
  );

export type Header = string | { label: string; num: true };
export const N = (label: string) => ({ label, num: true }) as const;

export function Table({ headers, rows, empty }: { headers: Header[]; rows: ReactNode[]; empty: string }) {
  if (rows.length === 0) return <p className="muted">{empty}</p>;
  return (
    // Focusable: on a phone the table scrolls sideways, and a keyboard must be able to scroll it too.
    <div className="scroll" tabIndex={0}>
      <table>
        <thead>
          <tr>
            {headers.map((h, i) =>
              typeof h === 'string' ? (
                <th key={i} scope="col">
                  {h}
                </th>
              ) : (
                <th key={i} scope="col" className="num">
                  {h.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{rows}</tbody>
      </table>
    </div>
  );
}

// ---------- shared parts ----------

export const Notice = ({ flash }: { flash: string | null | undefined }) =>
  flash ? (
    <div className="notice" role="status">
      <p>{flash}</p>
    </div>
  ) : null;

/** While the provider refuses sends for quota: what the operator must know first, above everything else. */
export const QuotaBanner = ({ quota: q }: { quota: QuotaNotice | null }) =>
  q ? (
    <div className="alert" role="status" id="provider-quota">
      <p>
        <strong>{quotaNoticeText(q, (d) => `${utc(d)} UTC`)}</strong> ({q.period} quota, reached {utc(q.reachedAt)} UTC by run{' '}
        <code>{q.runId}</code>: {q.error}). Emails wait as pending without using attempts; every run tries once more, so a raised quota is
        picked up by the next run.
      </p>
    </div>
  ) : null;

/** While failed logins keep the login locked: what the operator reading this (in a session opened before) should know. */
export const LoginLockBanner = ({ lock }: { lock: LoginLock | null }) =>
  lock ? (
    <div className="alert" role="status" id="login-locked">
      <p>
        <strong>Login is locked until {utc(lock.until)} UTC</strong> after {lock.failures} failed logins within{' '}
        {LOGIN_LIMIT.failureWindowMs / 60_000} minutes. New logins are refused for everyone until then; sessions already open, like this
        one, keep working.
      </p>
    </div>
  ) : null;

export function TopBar({ now, title, back }: { now: Date; title: string; back?: boolean }) {
  return (
    <div className="topbar">
      <h1>{title}</h1>
      <div className="meta">
        {back ? <a href="/admin">← Dashboard</a> : null}
        <span>{utc(now)} UTC</span>
        <form method="post" action="/admin/logout">
          <button type="submit" className="secondary small">
            Log out
          </button>
        </form>
      </div>
    </div>
  );
}

export function LookupForm({ email = '' }: { email?: string }) {
  return (
    <section aria-labelledby="lookup-title">
      <h2 id="lookup-title">Look up a subscriber</h2>
      <form method="post" action="/admin" className="lookup">
        <div>
          <label htmlFor="lookup-email">Email address</label>
          <input type="email" id="lookup-email" name="email" defaultValue={email} required autoComplete="off" spellCheck={false} />
        </div>
        <button type="submit">Look up</button>
      </form>
    </section>
  );
}

/** A POST button to /admin/actions; `back` brings the operator back to that subscriber after the redirect. */
export function ActionButton(input: {
  action: string;
  label: string;
  fields: Record<string, string>;
  back?: string;
  tone?: 'secondary' | 'danger';
}) {
  const fields = { ...input.fields, ...(input.back ? { back: input.back } : {}) };
  return (
    <form method="post" action="/admin/actions">
      <input type="hidden" name="action" value={input.action} />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className={`small${input.tone ? ` ${input.tone}` : ''}`}>
        {input.label}
      </button>
    </form>
  );
}
export const OpsPage = ({ title, children }: { title: string; children: ReactNode }) => (
  <Page title={title} layout="card admin ops">
    {children}
  </Page>
);
