import type { ReactNode } from 'react';
import { isKeywordQuery, queryTextOf } from '../query/subscriber-query';
import type { ConfirmFailure } from './confirm';
import type { PreferencesLinkOutcome } from './email-preferences-link';
import { ErrorPage, Page, pageResponse, serverErrorResponse } from '../http/page';
import { LINK_LIFETIME_DAYS } from '../subscribers/link-token';
import type { Subscriber } from '../subscribers/subscriber';
import { describeCadence } from '../subscribers/describe-schedule';
import { describeNextEmail } from '../subscribers/describe-next-email';
import { PREVIEW_WINDOW_DAYS } from '../preview/preview';
import { describeMinPay, hasMinPay } from '../pay/minimum-pay';

/**
 * The pages of /confirm. GET only ever shows `askConfirmPage` (or why it cannot): mail scanners
 * open every link in an email, so only the button's POST confirms.
 */

type Preferences = Pick<
  Subscriber,
  'keywords' | 'excludes' | 'query' | 'minPay' | 'mode' | 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'
>;

const Row = ({ term, value }: { term: string; value: string }) => (
  <li>
    <strong>{term}:</strong> {value}
  </li>
);

/** What is being confirmed, so the mailbox's owner sees it before saying yes (the form that set it was anonymous). */
function PreferencesList({ preferences, digestHourUtc }: { preferences: Preferences; digestHourUtc: number }) {
  return (
    <ul>
      {isKeywordQuery(preferences) ? (
        <>
          <Row term="Keywords" value={preferences.keywords.join(', ')} />
          {preferences.excludes.length > 0 ? <Row term="Excludes" value={preferences.excludes.join(', ')} /> : null}
        </>
      ) : (
        <Row term="Query" value={queryTextOf(preferences)} />
      )}
      {hasMinPay(preferences.minPay) ? <Row term="Minimum pay" value={describeMinPay(preferences.minPay)} /> : null}
      <Row term="How often" value={describeCadence(preferences, digestHourUtc)} />
    </ul>
  );
}

export function AskConfirmView({
  token,
  maskedEmail,
  preferences,
  digestHourUtc,
}: {
  token: string;
  maskedEmail: string | null;
  preferences: Preferences;
  digestHourUtc: number;
}) {
  return (
    <Page title="Confirm your subscription">
      <h1>Confirm your subscription</h1>
      <p>
        One click and Scout starts emailing job postings
        {maskedEmail ? (
          <>
            {' for '}
            <strong>{maskedEmail}</strong>
          </>
        ) : null}{' '}
        that fit:
      </p>
      <PreferencesList preferences={preferences} digestHourUtc={digestHourUtc} />
      <form method="post" action={`?token=${encodeURIComponent(token)}`}>
        <button type="submit">Confirm my subscription</button>
      </form>
      <p className="fine">Not you, or changed your mind? Close this page: without a confirmation Scout sends nothing.</p>
    </Page>
  );
}

export const askConfirmPage = (input: { token: string; maskedEmail: string | null; preferences: Preferences; digestHourUtc: number }) =>
  pageResponse(<AskConfirmView {...input} />, { status: 200 });

/**
 * The answer to the one POST that confirmed: the only page a confirmation link ever shows a
 * preferences link on. It says what the confirmation sent (the welcome, when something of the week
 * fit) and when the next email comes, so nobody wonders why the inbox stays quiet.
 */
export function confirmedPage(input: {
  subscriber: Subscriber;
  preferencesUrl: string;
  digestHourUtc: number;
  now: Date;
  /** The welcome written with the activation; `sent`: it went out in this request, else the next cron run sends it. */
  welcome: { postings: number; sent: boolean } | null;
}): Promise<Response> {
  const title = 'You are subscribed';
  const { subscriber, welcome } = input;
  const matches = welcome
    ? `${welcome.postings} ${welcome.postings === 1 ? 'match' : 'matches'} from the last ${PREVIEW_WINDOW_DAYS} days`
    : '';
  return pageResponse(
    <Page title={title}>
      <h1>{title}</h1>
      <p>
        Scout will send you {describeCadence(subscriber, input.digestHourUtc)}. Every email has a link to change your preferences or
        unsubscribe.
      </p>
      {welcome ? (
        <p id="welcome">
          {welcome.sent
            ? `We've sent you ${matches}: look for the email starting "Welcome".`
            : `Your welcome email, with ${matches}, is on its way.`}{' '}
          {describeNextEmail(subscriber, input.now, input.digestHourUtc, 'next')}
        </p>
      ) : (
        <p id="welcome">
          {subscriber.mode === 'feed'
            ? describeNextEmail(subscriber, input.now, input.digestHourUtc, 'first')
            : `Nothing of the last ${PREVIEW_WINDOW_DAYS} days fits yet. ${describeNextEmail(subscriber, input.now, input.digestHourUtc, 'first')}`}
        </p>
      )}
      <p>
        <a href={input.preferencesUrl}>Change your preferences</a>
      </p>
    </Page>,
    { status: 200 },
  );
}

const INVALID_LINK = (
  <p>
    The link looks incomplete or changed. Open the confirmation link straight from the Scout email; some mail apps break long links when
    they are copied.
  </p>
);

const FAILURES: Record<ConfirmFailure, { status: number; title: string; message: ReactNode }> = {
  expired: {
    status: 400,
    title: 'This confirmation link has expired',
    message: (
      <p>
        Confirmation links work for {LINK_LIFETIME_DAYS.confirm} days. <a href="/#signup">Sign up again</a> to get a new one.
      </p>
    ),
  },
  'bad-signature': { status: 400, title: 'This link is not valid', message: INVALID_LINK },
  malformed: { status: 400, title: 'This link is not valid', message: INVALID_LINK },
  'wrong-purpose': {
    status: 400,
    title: 'This is not a confirmation link',
    message: <p>This link was made for something else. Use the button in the email Scout sent when you signed up.</p>,
  },
  'unknown-subscriber': {
    status: 404,
    title: 'No signup found',
    message: (
      <p>
        There is no Scout signup behind this link any more. <a href="/#signup">Sign up again</a> if you want job alerts.
      </p>
    ),
  },
  outdated: {
    status: 400,
    title: 'This confirmation link is out of date',
    message: (
      <p>
        Confirmation links now name the signup they confirm, and this one was sent before that. <a href="/#signup">Sign up again</a> to get
        a new one.
      </p>
    ),
  },
  superseded: {
    status: 409,
    title: 'A newer signup replaced this link',
    message: (
      <p>
        This address was signed up again after this link was sent, so only the link in the newest confirmation email works. Look for that
        email, or <a href="/#signup">sign up again</a>.
      </p>
    ),
  },
  used: {
    status: 409,
    title: 'This link was already used',
    message: (
      <p>
        Each confirmation link works once, and this one has: the subscription is confirmed. Every Scout email has links to change your
        preferences or unsubscribe, or Scout can email you a link to your preferences now.
      </p>
    ),
  },
  unsubscribed: {
    status: 409,
    title: 'This address has unsubscribed',
    message: (
      <p>
        This address unsubscribed after the link was sent, so the link cannot turn alerts back on. To subscribe again,{' '}
        <a href="/#signup">sign up</a> and confirm the new email.
      </p>
    ),
  },
};

/**
 * Why the link did not work. Nothing was changed. A used link (`token` given) is not a dead end: its
 * page offers to email the preferences link to the subscriber's mailbox — a POST, so a mail scanner
 * opening the link sends nothing, and never the preferences link itself, so a used confirmation link
 * does not become a standing login.
 */
export function confirmFailedPage(reason: ConfirmFailure, token?: string | null): Promise<Response> {
  const failure = FAILURES[reason];
  return pageResponse(
    <ErrorPage title={failure.title}>
      {failure.message}
      {reason === 'used' && token ? (
        <form method="post" action={`?token=${encodeURIComponent(token)}`}>
          <input type="hidden" name="action" value={EMAIL_PREFERENCES_ACTION} />
          <button type="submit">Email me a link to my preferences</button>
        </form>
      ) : null}
    </ErrorPage>,
    { status: failure.status },
  );
}

/**
 * After "Email me a link to my preferences". The same words whether or not an email went (the
 * mailbox's allowance, a subscription gone meanwhile), as the signup form answers: only the asker's
 * own network limit is told, so they know to wait.
 */
export function preferencesLinkRequestedPage(outcome: PreferencesLinkOutcome): Promise<Response> {
  if (outcome.kind === 'client-rate-limited')
    return pageResponse(
      <ErrorPage title="Too many requests">
        <p>Too many requests came from your network in the last hour. Please try again later.</p>
      </ErrorPage>,
      { status: 429, headers: { 'retry-after': String(outcome.retryAfterSec) } },
    );
  const title = 'Check your inbox';
  return pageResponse(
    <Page title={title}>
      <h1>{title}</h1>
      <p>
        If this address is still subscribed, Scout has emailed it a link to its preferences. To keep a mailbox from being flooded, Scout
        sends such a link at most every few minutes: if nothing comes, look for the latest one.
      </p>
    </Page>,
    { status: 200 },
  );
}

/** The form field the used link's button posts; the handler reads it (handle-confirm-request.ts). */
export const EMAIL_PREFERENCES_ACTION = 'email-preferences';

/** Our fault, not the link's: the visitor may try again. */
export const confirmServerErrorPage = (): Promise<Response> => serverErrorResponse('We could not confirm your subscription.');
