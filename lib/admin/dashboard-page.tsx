import { Fragment } from 'react';
import type { DoorView } from '../ops/auth-failures';
import { sourceName, spanInWords } from '../ops/source-health-view';
import type { Dashboard, FeedView, LockView, RunSummary } from '../ops/read-dashboard';
import type { FailedEmail } from '../ops/read-status';
import { AiVerdictsPanel, ModelFallbackNote } from './ai-verdicts-panel';
import { ChannelsPanel } from './channels-panel';
import { DigestHoursPanel } from './digest-hours-panel';
import { RunCharts } from './charts';
import { schemaText } from '../ledger/migrations/schema-view';
import {
  ActionButton,
  Dash,
  ErrorCell,
  LoginLockBanner,
  LookupForm,
  N,
  Notice,
  Num,
  OpsPage,
  Pill,
  TONES,
  QuotaBanner,
  Table,
  Tile,
  TopBar,
  When,
  adminPageResponse,
  duration,
  orDash,
  utc,
} from './ops-view';

const subscriberTotal = (d: Dashboard) => Object.values(d.subscribers).reduce((sum, n) => sum + n, 0);

/** The ops page at a glance: subscribers by status, counts, the digest hours, the AI verdict stage, channels, charts, runs, failed emails, locks, source health, the doors. */
export function dashboardPage(input: { dashboard: Dashboard; flash?: string | null; cookies?: string[] }): Promise<Response> {
  const d = input.dashboard;
  return adminPageResponse(
    <OpsPage title="Ops">
      <TopBar now={d.now} title="Scout ops" />
      <Notice flash={input.flash} />
      <QuotaBanner quota={d.quota} />
      <SchemaBanner schema={d.schema} />
      <LoginLockBanner lock={d.door.loginLock} />
      <SubscriberTiles d={d} />
      <GlanceTiles d={d} />
      <DigestHoursPanel coverage={d.digestHours} />
      <AiVerdictsPanel ai={d.ai} />
      <ChannelsPanel now={d.now} channels={d.channels} />
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
      <section aria-labelledby="sources-title">
        <h2 id="sources-title">
          Sources <span className="count">· health of every feed and board, the ones to act on first</span>
        </h2>
        <SourcesTable now={d.now} feeds={d.feeds} />
      </section>
    </OpsPage>,
    { status: 200, cookies: input.cookies },
  );
}

/** While the store is behind the code's schema version, every run refuses: said first, in words. */
function SchemaBanner({ schema }: { schema: Dashboard['schema'] }) {
  if (schema.stored === null || schema.stored >= schema.code) return null;
  return (
    <div className="alert" role="status" id="schema-version">
      <p>
        <strong>Runs refuse: {schema.notice}.</strong>
      </p>
    </div>
  );
}

function SubscriberTiles({ d }: { d: Dashboard }) {
  return (
    <section aria-labelledby="subscribers-title" className="first">
      <h2 id="subscribers-title">
        Subscribers <span className="count">· {subscriberTotal(d)} in all</span>
      </h2>
      <div className="tiles">
        <Tile n={d.subscribers.active} label="subscribers confirmed and active" />
        <Tile n={d.subscribers.pending} label="subscribers awaiting confirmation" />
        <Tile n={d.subscribers.paused} label="subscribers paused" />
        <Tile n={d.subscribers.unsubscribed} label="subscribers unsubscribed" />
      </div>
    </section>
  );
}

/** The outbox by state, today's digests, what waits too long, and the schema version. */
function GlanceTiles({ d }: { d: Dashboard }) {
  return (
    <section aria-labelledby="glance-title">
      <h2 id="glance-title">
        At a glance <span className="count">· outbox by state, digests for {d.day}</span>
      </h2>
      <div className="tiles">
        <Tile n={d.outbox.held} label="signup emails held for a later hour" />
        <Tile n={d.outbox.pending} label="emails pending" />
        <Tile n={d.outbox.sending} label="emails sending" />
        <Tile n={d.outbox.failed} label="emails failed" bad />
        <Tile n={d.outbox.dead} label="emails dead" bad />
        <Tile n={d.digestItemsDue} label="queued items due in a digest" />
        <Tile n={d.digestsSentToday} label="digests sent today" />
        <Tile n={d.postingsWaiting} label="postings unmatched after an hour" bad />
        <Tile n={d.claimsGivenUpRecent} label="claims given up in recent runs" bad />
      </div>
      <p>{schemaText(d.schema)}</p>
    </section>
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
      headers={['Refused', N('This hour'), N('Today (UTC)')]}
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
            <ModelFallbackNote model={r.model} />
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

const SOURCE_COLUMNS = 8;

/** One row per source, and under a source that needs the operator the one line saying what to do. */
function SourcesTable({ now, feeds }: { now: Date; feeds: FeedView[] }) {
  return (
    <Table
      headers={['Source', 'State', 'Last success', 'Last fetch', N('Failures'), 'Last error', N('Postings/day'), 'Last new posting']}
      rows={feeds.map((f) => (
        <Fragment key={f.source}>
          <tr className={f.whatToDo ? 'has-todo' : undefined}>
            <td>
              <strong>{f.source}</strong>
              <span className="sub">{sourceName(f)}</span>
              {f.url ? (
                <span className="sub">
                  <code>{f.url}</code>
                </span>
              ) : null}
            </td>
            <td>
              <Pill word={f.state} />
              <span className="sub">
                last fetch {f.status}
                {f.lastItemCount !== null ? `, ${f.lastItemCount} listed` : ''}
              </span>
            </td>
            <When now={now} at={f.lastSuccessAt} />
            <When now={now} at={f.lastFetchedAt} />
            <Num n={f.consecutiveFailures} />
            <td className="err">
              {f.lastError ? (
                <>
                  {f.lastError}
                  <span className="sub">{utc(f.lastErrorAt)}</span>
                </>
              ) : (
                <Dash />
              )}
            </td>
            <Num n={f.postingsPerDay === null ? '—' : perDay(f.postingsPerDay)} />
            <td className="when">
              {f.sinceLastNewMs === null ? <Dash /> : `${spanInWords(f.sinceLastNewMs)} ago`}
              {f.usualGapMs !== null ? <span className="sub">usual gap {spanInWords(f.usualGapMs)}</span> : null}
            </td>
          </tr>
          {f.whatToDo ? (
            <tr className={`todo ${TONES[f.state] ?? 'quiet'}`}>
              <td colSpan={SOURCE_COLUMNS}>{f.whatToDo}</td>
            </tr>
          ) : null}
        </Fragment>
      ))}
      empty="No sources configured or fetched yet."
    />
  );
}

const perDay = (n: number) => (n >= 10 ? Math.round(n).toString() : n.toFixed(1));

// ---------- one subscriber ----------
