import type { ReactNode } from 'react';
import { isKeywordQuery, queryTextOf } from '../query/subscriber-query';
import type { SubscriberEmail, SubscriberHistory } from '../ops/read-subscriber-history';
import {
  ActionButton,
  ErrorCell,
  LookupForm,
  N,
  Notice,
  Num,
  OpsPage,
  Pill,
  Table,
  TopBar,
  When,
  adminPageResponse,
  orDash,
  utc,
} from './ops-view';
import { describeCadence } from '../subscribers/describe-schedule';
import { isDigestMode, type Subscriber } from '../subscribers/subscriber';
import { describeMinPay } from '../pay/minimum-pay';

/** One subscriber, looked up by email: their settings, their emails newest first, their deliveries with outcomes, and the actions. */
export function subscriberPage(input: {
  now: Date;
  email?: string;
  history: SubscriberHistory | null;
  flash?: string | null;
  cookies?: string[];
  /** DIGEST_HOUR_UTC: the hour of a subscriber who chose none. */
  digestHourUtc: number;
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
  return adminPageResponse(
    <OpsPage title="Subscriber">
      <TopBar now={input.now} title="Subscriber" back />
      <Notice flash={input.flash} />
      <section aria-labelledby="who-title" className="first">
        <h2 id="who-title">{s.email}</h2>
        <SubscriberFacts subscriber={s} digestHourUtc={input.digestHourUtc} />
        <SubscriberActions subscriber={s} />
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

function SubscriberFacts({ subscriber: s, digestHourUtc }: { subscriber: Subscriber; digestHourUtc: number }) {
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        <Pill word={s.status} />
      </dd>
      <dt>Mode</dt>
      <dd>
        <code>{s.mode}</code>: {describeCadence(s, digestHourUtc)}
      </dd>
      <dt>Keywords</dt>
      <dd>{s.keywords.join(', ') || '—'}</dd>
      <dt>Excludes</dt>
      <dd>{s.excludes.join(', ') || '—'}</dd>
      <dt>Query</dt>
      <dd>
        <code>{queryTextOf(s) || '—'}</code>
        {isKeywordQuery(s) ? ' (their keywords and excludes)' : ' (written)'}
      </dd>
      <dt>Minimum pay</dt>
      <dd>{describeMinPay(s.minPay) || '—'}</dd>
      <dt>Created</dt>
      <dd>{utc(s.createdAt)} UTC</dd>
      <dt>Confirmed</dt>
      <dd>{s.confirmedAt ? `${utc(s.confirmedAt)} UTC` : '—'}</dd>
      <dt>Id</dt>
      <dd>
        <code>{s.id}</code>
      </dd>
    </dl>
  );
}

/** What an operator may do for them now, or why nothing. */
function SubscriberActions({ subscriber: s }: { subscriber: Subscriber }) {
  const back = s.id;
  const buttons: ReactNode[] = [];
  if (s.status === 'active') {
    // Only a digest subscriber has a digest to resend; an instant one's dead alerts have Retry in the emails table, which is theirs.
    if (isDigestMode(s.mode))
      buttons.push(<ActionButton key="resend" action="resend-digest" label="Resend latest digest" fields={{ uid: s.id }} back={back} />);
    buttons.push(<ActionButton key="pause" action="pause" label="Pause subscriber" fields={{ uid: s.id }} back={back} tone="danger" />);
  }
  if (s.status === 'paused')
    buttons.push(<ActionButton key="resume" action="resume" label="Resume subscriber" fields={{ uid: s.id }} back={back} />);
  return buttons.length > 0 ? (
    <div className="actions">{buttons}</div>
  ) : (
    <p className="muted no-actions">
      No actions:{' '}
      {s.status === 'unsubscribed' ? 'they unsubscribed, and only they can sign up again.' : 'they have not confirmed their email yet.'}
    </p>
  );
}

function EmailsTable({ now, emails, uid }: { now: Date; emails: SubscriberEmail[]; uid: string }) {
  return (
    <Table
      headers={['Created', 'Kind', 'Subject', 'Status', N('Attempts'), 'Sent', 'Last error', 'Action']}
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
