import type { ReactNode } from 'react';
import { quotaNoticeText, type QuotaNotice } from '../ops/provider-quota';
import type { DoorView, LoginLock } from '../ops/auth-failures';
import type { Dashboard, FeedView, LockView, RunSummary } from '../ops/read-dashboard';
import type { FailedEmail } from '../ops/read-status';
import type { SubscriberEmail, SubscriberHistory } from '../ops/read-subscriber-history';
import { ErrorPage, Page, pageResponse } from '../http/page';
import { RunCharts } from './charts';
import { LOGIN_LIMIT } from './login-limit';

/**
 * The pages of /admin: the login form, the dashboard, one subscriber. Plain server-rendered HTML
 * that needs no script; every value — feed errors, posting titles, subscriber keywords are all
 * someone else's text — is escaped by React.
 */

/** Every admin page: the shell's headers (no-store, no-referrer, the strict CSP, X-Frame-Options) and the cookies to set. */
const adminPageResponse = (page: ReactNode, init: { status: number; cookies?: string[]; retryAfterSec?: number }) =>
  pageResponse(page, {
    status: init.status,
    cookies: init.cookies,
    headers: init.retryAfterSec ? { 'retry-after': String(init.retryAfterSec) } : {},
  });

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

const Pill = ({ word }: { word: string }) => <span className={`pill ${TONES[word] ?? 'quiet'}`}>{word}</span>;
const When = ({ now, at }: { now: Date; at: Date | null }) => (
  <td className="when">
    {utc(at)}
    <span className="sub">{ago(now, at)}</span>
  </td>
);
const Num = ({ n }: { n: number | string }) => <td className="num">{n}</td>;
const Dash = () => <span className="muted">—</span>;
const orDash = (v: string | null | undefined) => (v === null || v === undefined || v === '' ? '—' : v);
/** An error cell: someone else's text, escaped, in the danger colour; a quiet dash when there is none. */
const ErrorCell = ({ text }: { text: string | null | undefined }) =>
  text ? (
    <td className="err">{text}</td>
  ) : (
    <td>
      <Dash />
    </td>
  );

type Header = string | { label: string; num: true };
const N = (label: string) => ({ label, num: true }) as const;

function Table({ headers, rows, empty }: { headers: Header[]; rows: ReactNode[]; empty: string }) {
  if (rows.length === 0) return <p className="muted">{empty}</p>;
  return (
    <div className="scroll">
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

const Notice = ({ flash }: { flash: string | null | undefined }) =>
  flash ? (
    <div className="notice" role="status">
      <p>{flash}</p>
    </div>
  ) : null;

/** While the provider refuses sends for quota: what the operator must know first, above everything else. */
const QuotaBanner = ({ quota: q }: { quota: QuotaNotice | null }) =>
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
const LoginLockBanner = ({ lock }: { lock: LoginLock | null }) =>
  lock ? (
    <div className="alert" role="status" id="login-locked">
      <p>
        <strong>Login is locked until {utc(lock.until)} UTC</strong> after {lock.failures} failed logins within{' '}
        {LOGIN_LIMIT.failureWindowMs / 60_000} minutes. New logins are refused for everyone until then; sessions already open, like this
        one, keep working.
      </p>
    </div>
  ) : null;

function TopBar({ now, title, back }: { now: Date; title: string; back?: boolean }) {
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

function LookupForm({ email = '' }: { email?: string }) {
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
function ActionButton(input: {
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

// ---------- login ----------

/** The whole page when there is no valid session: nothing about the system, just the form. */
export function loginPage(input: { status: number; message?: string; cookies?: string[]; retryAfterSec?: number }): Promise<Response> {
  return adminPageResponse(
    <Page title="Operator login" layout="card admin">
      <h1>Operator login</h1>
      <p>
        The ops page shows what Scout ran, sent and failed. Enter the admin secret (<code>ADMIN_SECRET</code>).
      </p>
      {input.message ? (
        <div className="alert" role="alert">
          <p>{input.message}</p>
        </div>
      ) : null}
      <form method="post" action="/admin/login" className="login">
        <label htmlFor="secret">Admin secret</label>
        <input type="password" id="secret" name="secret" required autoComplete="current-password" autoFocus />
        <button type="submit">Log in</button>
      </form>
    </Page>,
    input,
  );
}

// ---------- dashboard ----------

const OpsPage = ({ title, children }: { title: string; children: ReactNode }) => (
  <Page title={title} layout="card admin ops">
    {children}
  </Page>
);

function Tile({ n, label, bad = false }: { n: number; label: string; bad?: boolean }) {
  return (
    <div className={`tile${bad && n > 0 ? ' bad' : ''}`}>
      <span className="n">{n}</span>
      <span className="l">{label}</span>
    </div>
  );
}

export function dashboardPage(input: { dashboard: Dashboard; flash?: string | null; cookies?: string[] }): Promise<Response> {
  const d = input.dashboard;
  return adminPageResponse(
    <OpsPage title="Ops">
      <TopBar now={d.now} title="Scout ops" />
      <Notice flash={input.flash} />
      <QuotaBanner quota={d.quota} />
      <LoginLockBanner lock={d.door.loginLock} />
      <section aria-labelledby="glance-title" className="first">
        <h2 id="glance-title">
          At a glance <span className="count">· outbox by state, digests for {d.day}</span>
        </h2>
        <div className="tiles">
          <Tile n={d.outbox.pending} label="emails pending" />
          <Tile n={d.outbox.sending} label="emails sending" />
          <Tile n={d.outbox.failed} label="emails failed" bad />
          <Tile n={d.outbox.dead} label="emails dead" bad />
          <Tile n={d.digestItemsDue} label="queued items due in a digest" />
          <Tile n={d.digestsSentToday} label="digests sent today" />
          <Tile n={d.postingsWaiting} label="postings unmatched after an hour" bad />
          <Tile n={d.claimsGivenUpRecent} label="claims given up in recent runs" bad />
        </div>
      </section>
      <section aria-labelledby="door-title">
        <h2 id="door-title">
          Refused at the door{' '}
          <span className="count">· failed cron calls and logins (each in the log with a hashed client), signup emails</span>
        </h2>
        <DoorTable door={d.door} />
      </section>
      <section aria-labelledby="charts-title">
        <h2 id="charts-title">
          Runs over time <span className="count">· last {d.runs.length}</span>
        </h2>
        <RunCharts runsNewestFirst={d.runs} />
      </section>
      <section aria-labelledby="failures-title">
        <h2 id="failures-title">
          Failed and dead emails <span className="count">· newest {d.failures.length}</span>
        </h2>
        <FailuresTable now={d.now} failures={d.failures} />
      </section>
      <LookupForm />
      <section aria-labelledby="runs-title">
        <h2 id="runs-title">
          Recent runs <span className="count">· newest {d.runs.length}</span>
        </h2>
        <RunsTable now={d.now} runs={d.runs} />
      </section>
      <section aria-labelledby="locks-title">
        <h2 id="locks-title">Locks</h2>
        <LocksTable now={d.now} locks={d.locks} />
      </section>
      <section aria-labelledby="feeds-title">
        <h2 id="feeds-title">Feeds</h2>
        <FeedsTable now={d.now} feeds={d.feeds} />
      </section>
    </OpsPage>,
    { status: 200, cookies: input.cookies },
  );
}

function DoorTable({ door }: { door: DoorView }) {
  const row = (label: string, hour: number, day: number | null) => (
    <tr key={label}>
      <th scope="row">{label}</th>
      <Num n={hour} />
      <Num n={day ?? '—'} />
    </tr>
  );
  const { failures, signupEmails } = door;
  return (
    <Table
      headers={['', N('This hour'), N('Today (UTC)')]}
      rows={[
        row('Failed logins', failures.login.hour, failures.login.day),
        row('Failed cron calls', failures.cron.hour, failures.cron.day),
        row(signupEmails.cap === null ? 'Signup emails' : `Signup emails (cap ${signupEmails.cap} an hour)`, signupEmails.hour, null),
      ]}
      empty=""
    />
  );
}

function FailuresTable({ now, failures }: { now: Date; failures: FailedEmail[] }) {
  return (
    <Table
      headers={['Created', 'Email key', 'Kind', 'Status', N('Attempts'), 'Last error', N('Retried'), '']}
      rows={failures.map((f, i) => (
        <tr key={i}>
          <When now={now} at={f.createdAt} />
          <td>
            <code>{f.emailKey}</code>
          </td>
          <td>{f.kind}</td>
          <td>
            <Pill word={f.status} />
          </td>
          <Num n={f.attempts} />
          <ErrorCell text={f.lastError} />
          <Num n={f.retries} />
          <td>
            {f.status === 'dead' ? (
              <ActionButton action="retry" label="Retry" fields={{ emailKey: f.emailKey }} />
            ) : (
              <span className="muted" title="An alert whose fate is unknown is never resent">
                —
              </span>
            )}
          </td>
        </tr>
      ))}
      empty="No failed or dead emails."
    />
  );
}

function RunsTable({ now, runs }: { now: Date; runs: RunSummary[] }) {
  return (
    <Table
      headers={[
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
      ]}
      rows={runs.map((r, i) => (
        <tr key={i}>
          <When now={now} at={r.startedAt} />
          <td>
            <code>{r.runId}</code>
            {r.shard ? <span className="sub">shard {r.shard}</span> : null}
          </td>
          <td>{r.trigger}</td>
          <td>
            <Pill word={r.status} />
          </td>
          <Num n={duration(r.durationMs)} />
          <Num n={r.jobsFetched} />
          <Num n={r.jobsNew} />
          <Num n={r.matches} />
          <Num n={r.emailsSent} />
          <Num n={r.failures} />
          <td>
            {r.partial ? <Pill word="partial" /> : '—'}
            {r.claimsGivenUp > 0 ? <span className="sub">{r.claimsGivenUp} claims given up</span> : null}
            {r.quota ? (
              <>
                {' '}
                <Pill word="quota" />
              </>
            ) : null}
          </td>
          <td className="err">{r.errors.length > 0 ? r.errors.join('; ') : <Dash />}</td>
        </tr>
      ))}
      empty="No runs yet."
    />
  );
}

function LocksTable({ now, locks }: { now: Date; locks: LockView[] }) {
  return (
    <Table
      headers={['Lock', 'Holder', 'Taken', 'Expires', 'State']}
      rows={locks.map((l) => (
        <tr key={l.name}>
          <td>
            <code>{l.name}</code>
          </td>
          <td>
            <code>{orDash(l.owner)}</code>
          </td>
          <When now={now} at={l.acquiredAt} />
          <When now={now} at={l.expiresAt} />
          <td>
            <Pill word={l.held ? 'held' : 'expired'} />
          </td>
        </tr>
      ))}
      empty="No lock is taken: no run is in progress."
    />
  );
}

function FeedsTable({ now, feeds }: { now: Date; feeds: FeedView[] }) {
  return (
    <Table
      headers={['Feed', 'Status', 'Last fetch', N('Items'), 'Last error']}
      rows={feeds.map((f, i) => (
        <tr key={i}>
          <td>
            <strong>{f.source}</strong>
            <span className="sub">
              <code>{orDash(f.url)}</code>
            </span>
          </td>
          <td>
            <Pill word={f.status} />
          </td>
          <When now={now} at={f.lastFetchedAt} />
          <Num n={f.lastItemCount ?? '—'} />
          <td className="err">
            {f.lastError ? (
              <>
                {f.lastError}
                <span className="sub">
                  {utc(f.lastErrorAt)} · {f.consecutiveFailures} failure{f.consecutiveFailures === 1 ? '' : 's'} in a row
                </span>
              </>
            ) : (
              <Dash />
            )}
          </td>
        </tr>
      ))}
      empty="No feeds configured or fetched yet."
    />
  );
}

// ---------- one subscriber ----------

export function subscriberPage(input: {
  now: Date;
  email?: string;
  history: SubscriberHistory | null;
  flash?: string | null;
  cookies?: string[];
}): Promise<Response> {
  const h = input.history;
  if (!h) {
    return adminPageResponse(
      <OpsPage title="No such subscriber">
        <TopBar now={input.now} title="Subscriber" back />
        <Notice flash={input.flash} />
        <div className="alert" role="alert">
          <p>No subscriber has that address.</p>
        </div>
        <LookupForm email={input.email} />
      </OpsPage>,
      { status: 404, cookies: input.cookies },
    );
  }
  const s = h.subscriber;
  const back = s.id;
  const buttons: ReactNode[] = [];
  if (s.status === 'active') {
    buttons.push(<ActionButton key="resend" action="resend-digest" label="Resend latest digest" fields={{ uid: s.id }} back={back} />);
    buttons.push(<ActionButton key="pause" action="pause" label="Pause subscriber" fields={{ uid: s.id }} back={back} tone="danger" />);
  }
  if (s.status === 'paused')
    buttons.push(<ActionButton key="resume" action="resume" label="Resume subscriber" fields={{ uid: s.id }} back={back} />);

  return adminPageResponse(
    <OpsPage title="Subscriber">
      <TopBar now={input.now} title="Subscriber" back />
      <Notice flash={input.flash} />
      <section aria-labelledby="who-title" className="first">
        <h2 id="who-title">{s.email}</h2>
        <dl className="facts">
          <dt>Status</dt>
          <dd>
            <Pill word={s.status} />
          </dd>
          <dt>Mode</dt>
          <dd>{s.mode === 'daily' ? 'daily digest' : 'instant alerts'}</dd>
          <dt>Keywords</dt>
          <dd>{s.keywords.join(', ') || '—'}</dd>
          <dt>Excludes</dt>
          <dd>{s.excludes.join(', ') || '—'}</dd>
          <dt>Minimum budget</dt>
          <dd>{s.minBudget === null ? '—' : s.minBudget.toLocaleString('en-US')}</dd>
          <dt>Created</dt>
          <dd>{utc(s.createdAt)} UTC</dd>
          <dt>Confirmed</dt>
          <dd>{s.confirmedAt ? `${utc(s.confirmedAt)} UTC` : '—'}</dd>
          <dt>Id</dt>
          <dd>
            <code>{s.id}</code>
          </dd>
        </dl>
        {buttons.length > 0 ? (
          <div className="actions">{buttons}</div>
        ) : (
          <p className="muted no-actions">
            No actions:{' '}
            {s.status === 'unsubscribed'
              ? 'they unsubscribed, and only they can sign up again.'
              : 'they have not confirmed their email yet.'}
          </p>
        )}
      </section>
      <section aria-labelledby="emails-title">
        <h2 id="emails-title">
          Emails <span className="count">· newest {h.emails.length}</span>
        </h2>
        <EmailsTable now={input.now} emails={h.emails} uid={s.id} />
      </section>
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">
          Deliveries <span className="count">· newest {h.deliveries.length}</span>
        </h2>
        <DeliveriesTable now={input.now} history={h} />
      </section>
      <LookupForm />
    </OpsPage>,
    { status: 200, cookies: input.cookies },
  );
}

function EmailsTable({ now, emails, uid }: { now: Date; emails: SubscriberEmail[]; uid: string }) {
  return (
    <Table
      headers={['Created', 'Kind', 'Subject', 'Status', N('Attempts'), 'Sent', 'Last error', '']}
      rows={emails.map((e, i) => (
        <tr key={i}>
          <When now={now} at={e.createdAt} />
          <td>
            {e.kind}
            <span className="sub">
              <code>{e.emailKey}</code>
            </span>
          </td>
          <td>
            {orDash(e.subject)}
            {e.deliveries > 0 ? (
              <span className="sub">
                {e.deliveries} posting{e.deliveries === 1 ? '' : 's'}
              </span>
            ) : null}
          </td>
          <td>
            <Pill word={e.status} />
            {e.retries > 0 ? <span className="sub">retried {e.retries}×</span> : null}
          </td>
          <Num n={e.attempts} />
          <td className="when">{utc(e.sentAt)}</td>
          <ErrorCell text={e.lastError} />
          <td>{e.status === 'dead' ? <ActionButton action="retry" label="Retry" fields={{ emailKey: e.emailKey }} back={uid} /> : null}</td>
        </tr>
      ))}
      empty="No emails."
    />
  );
}

function DeliveriesTable({ now, history }: { now: Date; history: SubscriberHistory }) {
  return (
    <Table
      headers={['Created', 'Posting', 'Mode', N('Score'), 'Outcome', 'Email']}
      rows={history.deliveries.map((d, i) => (
        <tr key={i}>
          <When now={now} at={d.createdAt} />
          <td>
            {d.title ?? <span className="muted">(posting pruned)</span>}
            <span className="sub">
              <code>{d.jobId}</code>
            </span>
          </td>
          <td>{d.mode}</td>
          <Num n={d.score} />
          <td>
            <Pill word={d.status} />
            {d.reason ? <span className="sub">{d.reason}</span> : null}
          </td>
          <td>
            <code>{orDash(d.emailKey)}</code>
          </td>
        </tr>
      ))}
      empty="No deliveries yet."
    />
  );
}

// ---------- refusals ----------

export function adminRefusedPage(input: { status: 400 | 403 | 404 | 405 | 413 | 500; title: string; message: string }): Promise<Response> {
  return adminPageResponse(
    <ErrorPage title={input.title}>
      <p>{input.message}</p>
      <p className="fine">
        <a href="/admin">Back to the ops page</a>
      </p>
    </ErrorPage>,
    { status: input.status },
  );
}

/** Our failure; the operator may reload. */
export const adminServerErrorPage = () =>
  adminRefusedPage({ status: 500, title: 'Something went wrong', message: 'The ops page could not read or write the store. Try again.' });

/** The ops page when the store does not answer in time (withDeadline adds the 503 and Retry-After). */
export const adminUnavailablePage = () =>
  adminPageResponse(
    <ErrorPage title="Scout ops">
      <p>The database did not answer in time. Try again in a minute.</p>
    </ErrorPage>,
    { status: 503 },
  );
