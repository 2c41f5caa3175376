import { quotaNoticeText, type QuotaNotice } from '../ops/provider-quota';
import type { DoorView, LoginLock } from '../ops/auth-failures';
import type { Dashboard, FeedView, LockView, RunSummary } from '../ops/read-dashboard';
import type { FailedEmail } from '../ops/read-status';
import type { SubscriberEmail, SubscriberHistory } from '../ops/read-subscriber-history';
import { html, type Html } from '../http/html-page';
import { adminPageResponse } from './admin-http';
import { CHART_STYLE, runCharts } from './charts';
import { LOGIN_LIMIT } from './login-limit';

/**
 * The pages of /admin: the login form, the dashboard, one subscriber. Plain server-rendered HTML
 * that needs no script; every value — feed errors, posting titles, subscriber keywords are all
 * someone else's text — goes through the `html` tag's escaping.
 */

const PALETTE = `
:root{--ok:#15803d;--warn:#b45309}
@media (prefers-color-scheme:dark){:root{--ok:#4ade80;--warn:#fbbf24}}
form{margin:0}
input[type=email],input[type=password]{font:inherit;padding:9px 11px;border:1px solid var(--muted);border-radius:8px;background:var(--card);color:var(--text)}
input:focus-visible{outline:3px solid var(--accent);outline-offset:1px}
label{display:block;font-weight:600;margin:0 0 6px}
.notice{border-left:4px solid var(--accent);padding:10px 14px;margin:0 0 20px;background:var(--bg)}
.notice p{margin:0;color:var(--text)}
.alert{border-left:4px solid var(--danger);padding:10px 14px;margin:0 0 20px;background:var(--bg)}
.alert p{margin:0;color:var(--text)}
`.trim();

const LOGIN_STYLE = `${PALETTE}
.login input{display:block;width:100%;margin:0 0 16px}
`;

const ADMIN_STYLE = `${PALETTE}
${CHART_STYLE}
body{display:block;padding:20px}
main{max-width:1280px;margin:0 auto;padding:24px 28px}
.brand{margin-bottom:8px}
.topbar{display:flex;justify-content:space-between;align-items:center;gap:12px;flex-wrap:wrap;margin:0 0 18px}
.topbar h1{margin:0}
.topbar .meta{display:flex;gap:14px;align-items:center;flex-wrap:wrap;font-size:14px;color:var(--muted)}
.topbar a{color:var(--accent)}
section{margin:30px 0 0}
h2{font-size:18px;margin:0 0 10px}
h2 .count{font-weight:400;color:var(--muted);font-size:14px}
p{margin:0 0 10px}
.muted{color:var(--muted)}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:12px}
.tile{border:1px solid var(--line);border-radius:10px;padding:10px 14px;background:var(--bg)}
.tile .n{display:block;font-size:26px;font-weight:700;line-height:1.25;color:var(--text);font-variant-numeric:tabular-nums}
.tile .l{display:block;font-size:13px;color:var(--muted)}
.tile.bad{border-color:var(--danger)}
.tile.bad .n{color:var(--danger)}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:14px}
figure{margin:0;border:1px solid var(--line);border-radius:10px;padding:10px 12px 6px;background:var(--bg)}
figcaption{font-weight:600;font-size:14px;margin:0 0 4px}
.legend{font-size:13px;margin:8px 0 0}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;background:var(--accent);margin:0 2px 0 8px;vertical-align:baseline}
.swatch.warn{background:var(--warn)}
.swatch.bad{background:var(--danger)}
.scroll{overflow-x:auto;border:1px solid var(--line);border-radius:10px}
table{border-collapse:collapse;width:100%;font-size:13.5px;line-height:1.4}
th,td{text-align:left;padding:7px 10px;border-bottom:1px solid var(--line);vertical-align:top}
tr:last-child td{border-bottom:0}
th{font-size:11.5px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);background:var(--bg);white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.when{white-space:nowrap}
td .sub{display:block;font-size:12px;color:var(--muted)}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.err{color:var(--danger);overflow-wrap:anywhere;min-width:180px;max-width:460px}
.pill{display:inline-block;padding:0 8px;border-radius:999px;font-size:12px;font-weight:600;border:1px solid currentColor;white-space:nowrap}
.ok{color:var(--ok)}
.warn{color:var(--warn)}
.bad{color:var(--danger)}
.quiet{color:var(--muted)}
button.small{padding:5px 12px;font-size:13px}
button.secondary{background:transparent;color:var(--accent);border:2px solid var(--accent)}
button.danger{background:var(--danger)}
.lookup{display:flex;gap:10px;align-items:flex-end;flex-wrap:wrap}
.lookup input{min-width:340px}
.actions{display:flex;gap:10px;flex-wrap:wrap;margin:14px 0 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:6px 18px;margin:0;align-items:baseline}
dl.facts dt{font-weight:600;color:var(--muted);font-size:14px}
dl.facts dd{margin:0;overflow-wrap:anywhere}
`;

// ---------- formatting ----------

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

const TONES: Record<string, string> = {
  done: 'ok',
  ok: 'ok',
  sent: 'ok',
  active: 'ok',
  held: 'warn',
  running: 'warn',
  partial: 'warn',
  quota: 'bad',
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
};

const pill = (word: string) => html`<span class="pill ${TONES[word] ?? 'quiet'}">${word}</span>`;
const when = (now: Date, d: Date | null) => html`<td class="when">${utc(d)}<span class="sub">${ago(now, d)}</span></td>`;
const num = (n: number) => html`<td class="num">${n}</td>`;
const orDash = (v: string | null | undefined) => (v === null || v === undefined || v === '' ? '—' : v);
/** An error cell: someone else's text, escaped, in the danger colour; a quiet dash when there is none. */
const errorCell = (v: string | null | undefined) => (v ? html`<td class="err">${v}</td>` : html`<td><span class="muted">—</span></td>`);

function table(headers: (string | { label: string; num: true })[], rows: Html[], empty: string): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<div class="scroll"><table>
<thead><tr>${headers.map((h) => (typeof h === 'string' ? html`<th scope="col">${h}</th>` : html`<th scope="col" class="num">${h.label}</th>`))}</tr></thead>
<tbody>
${rows}</tbody>
</table></div>`;
}

const N = (label: string) => ({ label, num: true }) as const;

// ---------- shared parts ----------

const notice = (flash: string | null | undefined) => (flash ? html`<div class="notice" role="status"><p>${flash}</p></div>` : null);

/** While the provider refuses sends for quota: what the operator must know first, above everything else. */
const quotaBanner = (q: QuotaNotice | null) =>
  q
    ? html`<div class="alert" role="status" id="provider-quota"><p><strong>${quotaNoticeText(q, (d) => `${utc(d)} UTC`)}</strong>
(${q.period} quota, reached ${utc(q.reachedAt)} UTC by run <code>${q.runId}</code>: ${q.error}). Emails wait as pending without
using attempts; every run tries once more, so a raised quota is picked up by the next run.</p></div>`
    : null;

/** While failed logins keep the login locked: what the operator reading this (in a session opened before) should know. */
const loginLockBanner = (lock: LoginLock | null) =>
  lock
    ? html`<div class="alert" role="status" id="login-locked"><p><strong>Login is locked until ${utc(lock.until)} UTC</strong>
after ${lock.failures} failed logins within ${LOGIN_LIMIT.failureWindowMs / 60_000} minutes. New logins are refused for everyone
until then; sessions already open, like this one, keep working.</p></div>`
    : null;

function topBar(input: { now: Date; title: string; back?: boolean }): Html {
  return html`<div class="topbar">
<h1>${input.title}</h1>
<div class="meta">${input.back ? html`<a href="/admin">← Dashboard</a>` : null}<span>${utc(input.now)} UTC</span>
<form method="post" action="/admin/logout"><button type="submit" class="secondary small">Log out</button></form></div>
</div>`;
}

function lookupForm(email = ''): Html {
  return html`<section aria-labelledby="lookup-title">
<h2 id="lookup-title">Look up a subscriber</h2>
<form method="post" action="/admin" class="lookup">
<div><label for="lookup-email">Email address</label>
<input type="email" id="lookup-email" name="email" value="${email}" required autocomplete="off" spellcheck="false"></div>
<button type="submit">Look up</button>
</form>
</section>`;
}

/** A POST button to /admin/actions; `back` brings the operator back to that subscriber after the redirect. */
function actionButton(input: {
  action: string;
  label: string;
  fields: Record<string, string>;
  back?: string;
  tone?: 'secondary' | 'danger';
}): Html {
  const fields = { ...input.fields, ...(input.back ? { back: input.back } : {}) };
  return html`<form method="post" action="/admin/actions"><input type="hidden" name="action" value="${input.action}">${Object.entries(
    fields,
  ).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  )}<button type="submit" class="small${input.tone ? ` ${input.tone}` : ''}">${input.label}</button></form>`;
}

// ---------- login ----------

/** The whole page when there is no valid session: nothing about the system, just the form. */
export function loginPage(input: { status: number; message?: string; cookies?: string[]; retryAfterSec?: number }): Response {
  const alert = input.message ? html`<div class="alert" role="alert"><p>${input.message}</p></div>` : null;
  const response = adminPageResponse(
    {
      status: input.status,
      title: 'Operator login',
      styles: LOGIN_STYLE,
      body: html`<h1>Operator login</h1>
<p>The ops page shows what Scout ran, sent and failed. Enter the admin secret (<code>ADMIN_SECRET</code>).</p>
${alert}<form method="post" action="/admin/login" class="login">
<label for="secret">Admin secret</label>
<input type="password" id="secret" name="secret" required autocomplete="current-password" autofocus>
<button type="submit">Log in</button>
</form>`,
    },
    input.cookies,
  );
  if (input.retryAfterSec) response.headers.set('retry-after', String(input.retryAfterSec));
  return response;
}

// ---------- dashboard ----------

export function dashboardPage(input: { dashboard: Dashboard; flash?: string | null; cookies?: string[] }): Response {
  const d = input.dashboard;
  const tile = (n: number, label: string, bad = false) =>
    html`<div class="tile${bad && n > 0 ? ' bad' : ''}"><span class="n">${n}</span><span class="l">${label}</span></div>`;
  return adminPageResponse(
    {
      status: 200,
      title: 'Ops',
      styles: ADMIN_STYLE,
      body: html`${topBar({ now: d.now, title: 'Scout ops' })}
${notice(input.flash)}${quotaBanner(d.quota)}${loginLockBanner(d.door.loginLock)}
<section aria-labelledby="glance-title" style="margin-top:0">
<h2 id="glance-title">At a glance <span class="count">· outbox by state, digests for ${d.day}</span></h2>
<div class="tiles">
${tile(d.outbox.pending, 'emails pending')}${tile(d.outbox.sending, 'emails sending')}${tile(d.outbox.failed, 'emails failed', true)}${tile(d.outbox.dead, 'emails dead', true)}
${tile(d.digestItemsDue, 'queued items due in a digest')}${tile(d.digestsSentToday, 'digests sent today')}${tile(d.postingsWaiting, 'postings unmatched after an hour', true)}
</div>
</section>
<section aria-labelledby="door-title">
<h2 id="door-title">Refused at the door <span class="count">· failed cron calls and logins (each in the log with a hashed client), signup emails</span></h2>
${doorTable(d.door)}
</section>
<section aria-labelledby="charts-title">
<h2 id="charts-title">Runs over time <span class="count">· last ${d.runs.length}</span></h2>
${runCharts(d.runs)}
</section>
<section aria-labelledby="failures-title">
<h2 id="failures-title">Failed and dead emails <span class="count">· newest ${d.failures.length}</span></h2>
${failuresTable(d.now, d.failures)}
</section>
${lookupForm()}
<section aria-labelledby="runs-title">
<h2 id="runs-title">Recent runs <span class="count">· newest ${d.runs.length}</span></h2>
${runsTable(d.now, d.runs)}
</section>
<section aria-labelledby="locks-title">
<h2 id="locks-title">Locks</h2>
${locksTable(d.now, d.locks)}
</section>
<section aria-labelledby="feeds-title">
<h2 id="feeds-title">Feeds</h2>
${feedsTable(d.now, d.feeds)}
</section>`,
    },
    input.cookies,
  );
}

function doorTable(door: DoorView): Html {
  const cell = (n: number | null) => html`<td class="num">${n ?? '—'}</td>`;
  const row = (label: string, hour: number, day: number | null) => html`<tr><th scope="row">${label}</th>${cell(hour)}${cell(day)}</tr>
`;
  const { failures, signupEmails } = door;
  return table(
    ['', N('This hour'), N('Today (UTC)')],
    [
      row('Failed logins', failures.login.hour, failures.login.day),
      row('Failed cron calls', failures.cron.hour, failures.cron.day),
      row(signupEmails.cap === null ? 'Signup emails' : `Signup emails (cap ${signupEmails.cap} an hour)`, signupEmails.hour, null),
    ],
    '',
  );
}

function failuresTable(now: Date, failures: FailedEmail[]): Html {
  return table(
    ['Created', 'Email key', 'Kind', 'Status', N('Attempts'), 'Last error', N('Retried'), ''],
    failures.map(
      (
        f,
      ) => html`<tr>${when(now, f.createdAt)}<td><code>${f.emailKey}</code></td><td>${f.kind}</td><td>${pill(f.status)}</td>${num(f.attempts)}
${errorCell(f.lastError)}${num(f.retries)}<td>${
        f.status === 'dead'
          ? actionButton({ action: 'retry', label: 'Retry', fields: { emailKey: f.emailKey } })
          : html`<span class="muted" title="An alert whose fate is unknown is never resent">—</span>`
      }</td></tr>
`,
    ),
    'No failed or dead emails.',
  );
}

function runsTable(now: Date, runs: RunSummary[]): Html {
  return table(
    [
      'Started',
      'Run',
      'Trigger',
      'Status',
      N('Duration'),
      N('Fetched'),
      N('New'),
      N('Matches'),
      N('Emails'),
      N('Failures'),
      'Partial',
      'Errors',
    ],
    runs.map(
      (
        r,
      ) => html`<tr>${when(now, r.startedAt)}<td><code>${r.runId}</code>${r.shard ? html`<span class="sub">shard ${r.shard}</span>` : null}</td>
<td>${r.trigger}</td><td>${pill(r.status)}</td><td class="num">${duration(r.durationMs)}</td>${num(r.jobsFetched)}${num(r.jobsNew)}${num(r.matches)}${num(r.emailsSent)}${num(r.failures)}
<td>${r.partial ? pill('partial') : '—'}${r.quota ? html` ${pill('quota')}` : null}</td><td class="err">${r.errors.length > 0 ? r.errors.join('; ') : html`<span class="muted">—</span>`}</td></tr>
`,
    ),
    'No runs yet.',
  );
}

function locksTable(now: Date, locks: LockView[]): Html {
  return table(
    ['Lock', 'Holder', 'Taken', 'Expires', 'State'],
    locks.map(
      (
        l,
      ) => html`<tr><td><code>${l.name}</code></td><td><code>${orDash(l.owner)}</code></td>${when(now, l.acquiredAt)}${when(now, l.expiresAt)}
<td>${pill(l.held ? 'held' : 'expired')}</td></tr>
`,
    ),
    'No lock is taken: no run is in progress.',
  );
}

function feedsTable(now: Date, feeds: FeedView[]): Html {
  return table(
    ['Feed', 'Status', 'Last fetch', N('Items'), 'Last error'],
    feeds.map(
      (
        f,
      ) => html`<tr><td><strong>${f.source}</strong><span class="sub"><code>${orDash(f.url)}</code></span></td><td>${pill(f.status)}</td>${when(now, f.lastFetchedAt)}
<td class="num">${f.lastItemCount ?? '—'}</td><td class="err">${
        f.lastError
          ? html`${f.lastError}<span class="sub">${utc(f.lastErrorAt)} · ${f.consecutiveFailures} failure${f.consecutiveFailures === 1 ? '' : 's'} in a row</span>`
          : html`<span class="muted">—</span>`
      }</td></tr>
`,
    ),
    'No feeds configured or fetched yet.',
  );
}

// ---------- one subscriber ----------

export function subscriberPage(input: {
  now: Date;
  email?: string;
  history: SubscriberHistory | null;
  flash?: string | null;
  cookies?: string[];
}): Response {
  const h = input.history;
  if (!h) {
    return adminPageResponse(
      {
        status: 404,
        title: 'No such subscriber',
        styles: ADMIN_STYLE,
        body: html`${topBar({ now: input.now, title: 'Subscriber', back: true })}
${notice(input.flash)}<div class="alert" role="alert"><p>No subscriber has that address.</p></div>
${lookupForm(input.email)}`,
      },
      input.cookies,
    );
  }
  const s = h.subscriber;
  const back = s.id;
  const buttons: Html[] = [];
  if (s.status === 'active') {
    buttons.push(actionButton({ action: 'resend-digest', label: 'Resend latest digest', fields: { uid: s.id }, back }));
    buttons.push(actionButton({ action: 'pause', label: 'Pause subscriber', fields: { uid: s.id }, back, tone: 'danger' }));
  }
  if (s.status === 'paused') buttons.push(actionButton({ action: 'resume', label: 'Resume subscriber', fields: { uid: s.id }, back }));

  return adminPageResponse(
    {
      status: 200,
      title: 'Subscriber',
      styles: ADMIN_STYLE,
      body: html`${topBar({ now: input.now, title: 'Subscriber', back: true })}
${notice(input.flash)}
<section aria-labelledby="who-title" style="margin-top:0">
<h2 id="who-title">${s.email}</h2>
<dl class="facts">
<dt>Status</dt><dd>${pill(s.status)}</dd>
<dt>Mode</dt><dd>${s.mode === 'daily' ? 'daily digest' : 'instant alerts'}</dd>
<dt>Keywords</dt><dd>${s.keywords.join(', ') || '—'}</dd>
<dt>Excludes</dt><dd>${s.excludes.join(', ') || '—'}</dd>
<dt>Minimum budget</dt><dd>${s.minBudget === null ? '—' : s.minBudget.toLocaleString('en-US')}</dd>
<dt>Created</dt><dd>${utc(s.createdAt)} UTC</dd>
<dt>Confirmed</dt><dd>${s.confirmedAt ? html`${utc(s.confirmedAt)} UTC` : '—'}</dd>
<dt>Id</dt><dd><code>${s.id}</code></dd>
</dl>
${buttons.length > 0 ? html`<div class="actions">${buttons}</div>` : html`<p class="muted" style="margin-top:12px">No actions: ${s.status === 'unsubscribed' ? 'they unsubscribed, and only they can sign up again.' : 'they have not confirmed their email yet.'}</p>`}
</section>
<section aria-labelledby="emails-title">
<h2 id="emails-title">Emails <span class="count">· newest ${h.emails.length}</span></h2>
${emailsTable(input.now, h.emails, s.id)}
</section>
<section aria-labelledby="deliveries-title">
<h2 id="deliveries-title">Deliveries <span class="count">· newest ${h.deliveries.length}</span></h2>
${deliveriesTable(input.now, h)}
</section>
${lookupForm()}`,
    },
    input.cookies,
  );
}

function emailsTable(now: Date, emails: SubscriberEmail[], uid: string): Html {
  return table(
    ['Created', 'Kind', 'Subject', 'Status', N('Attempts'), 'Sent', 'Last error', ''],
    emails.map(
      (
        e,
      ) => html`<tr>${when(now, e.createdAt)}<td>${e.kind}<span class="sub"><code>${e.emailKey}</code></span></td><td>${orDash(e.subject)}${
        e.deliveries > 0 ? html`<span class="sub">${e.deliveries} posting${e.deliveries === 1 ? '' : 's'}</span>` : null
      }</td>
<td>${pill(e.status)}${e.retries > 0 ? html`<span class="sub">retried ${e.retries}×</span>` : null}</td>${num(e.attempts)}<td class="when">${utc(e.sentAt)}</td>
${errorCell(e.lastError)}<td>${e.status === 'dead' ? actionButton({ action: 'retry', label: 'Retry', fields: { emailKey: e.emailKey }, back: uid }) : null}</td></tr>
`,
    ),
    'No emails.',
  );
}

function deliveriesTable(now: Date, h: SubscriberHistory): Html {
  return table(
    ['Created', 'Posting', 'Mode', N('Score'), 'Outcome', 'Email'],
    h.deliveries.map(
      (
        d,
      ) => html`<tr>${when(now, d.createdAt)}<td>${d.title ?? html`<span class="muted">(posting pruned)</span>`}<span class="sub"><code>${d.jobId}</code></span></td>
<td>${d.mode}</td>${num(d.score)}<td>${pill(d.status)}${d.reason ? html`<span class="sub">${d.reason}</span>` : null}</td><td><code>${orDash(d.emailKey)}</code></td></tr>
`,
    ),
    'No deliveries yet.',
  );
}

// ---------- refusals ----------

export function adminRefusedPage(input: { status: 400 | 403 | 404 | 405 | 413 | 500; title: string; message: string }): Response {
  return adminPageResponse({
    status: input.status,
    title: input.title,
    tone: 'error',
    body: html`<h1>${input.title}</h1>
<p>${input.message}</p>
<p class="fine"><a href="/admin">Back to the ops page</a></p>`,
  });
}
