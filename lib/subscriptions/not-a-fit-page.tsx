import type { ReactNode } from 'react';
import { ErrorPage, Page, pageResponse, serverErrorResponse } from '../http/page';
import { linkFailedPage, type LinkFailure, type LinkFailureCopy } from './link-failed-page';
import type { SubscriberStatus } from '../subscribers/subscriber';

/**
 * The pages of /not-a-fit. GET only ever asks (or says why it cannot): mail scanners open every
 * link in an email, so only the button's POST records anything. React escapes every value; the
 * posting's title is feed text and stays text.
 */

/** The one field the button posts; the signed token in the URL is the whole credential. */
const CONFIRM_FIELD = 'feedback';
const CONFIRM_VALUE = 'not-a-fit';

/** The question, with the one button. */
export function AskNotAFitView({ token, title }: { token: string; title: string }) {
  return (
    <Page title="Not a fit?">
      <h1>Not a fit for you?</h1>
      <p>Tell Scout that this posting is not what you are looking for:</p>
      <p>
        <strong>{title || 'Untitled posting'}</strong>
      </p>
      <form method="post" action={`?token=${encodeURIComponent(token)}`}>
        <input type="hidden" name={CONFIRM_FIELD} value={CONFIRM_VALUE} />
        <button type="submit">Not a fit</button>
      </form>
      <p className="fine">Nothing is recorded until you press the button.</p>
    </Page>
  );
}

export const askNotAFitPage = (input: { token: string; title: string }) => pageResponse(<AskNotAFitView {...input} />, { status: 200 });

/** After the POST: recorded (or found recorded), and where to go to change more. */
export function NotedView(input: { title: string; alreadyRecorded: boolean; preferencesLink: string; aiEnabled: boolean }) {
  const title = <strong>{input.title || 'Untitled posting'}</strong>;
  return (
    <Page title="Noted">
      <h1>Noted — we won’t count this one as a fit</h1>
      <div className="notice" role="status">
        <p>{input.alreadyRecorded ? <>You had already marked {title} as not a fit.</> : <>{title} is marked as not a fit.</>}</p>
      </div>
      {input.aiEnabled ? (
        <p>
          When Scout asks the model how well new postings fit you, it shows your latest “not a fit” postings too, so postings like this one
          rate lower.
        </p>
      ) : null}
      <p>
        When several postings you marked share a word, your preferences page suggests excluding it, with how many of your recent matches it
        would have removed.
      </p>
      <p>
        <a href={input.preferencesLink}>Change your preferences</a>
      </p>
    </Page>
  );
}

export const notedPage = (input: { title: string; alreadyRecorded: boolean; preferencesLink: string; aiEnabled: boolean }) =>
  pageResponse(<NotedView {...input} />, { status: 200 });

/** The posting is no longer stored and was never marked: nothing to record it with. */
export function postingGonePage(input: { retentionDays: number; preferencesLink: string }): Promise<Response> {
  return pageResponse(
    <ErrorPage title="This posting is no longer at Scout">
      <p>
        Scout keeps postings for {input.retentionDays} days, and this one has gone, so there is nothing left to mark. Nothing was recorded.
      </p>
      <p>
        If postings like it keep coming, add a word they share to your excludes on your <a href={input.preferencesLink}>preferences page</a>
        .
      </p>
    </ErrorPage>,
    { status: 410 },
  );
}

/** No subscription, or one that is not receiving emails: nothing recorded. GET answers 200 (the page is the answer); a refused POST 409. */
export function notSubscribedPage(input: { status: SubscriberStatus | 'unknown'; httpStatus?: number }): Promise<Response> {
  if (input.status === 'unknown')
    return pageResponse(
      <ErrorPage title="No subscription found">
        <p>There is no Scout subscription behind this link any more, so Scout will not email you. Nothing was recorded.</p>
      </ErrorPage>,
      { status: 404 },
    );
  const message: ReactNode =
    input.status === 'unsubscribed' ? (
      <>
        <p>Scout does not email you any more, so there is nothing to tune. Nothing was recorded.</p>
        <p>
          Want job alerts again? <a href="/">Sign up again</a> and confirm your email.
        </p>
      </>
    ) : (
      <p>Your subscription is not confirmed yet, so Scout has sent you no postings to mark. Nothing was recorded.</p>
    );
  return pageResponse(
    <Page title={input.status === 'unsubscribed' ? 'You are unsubscribed' : 'Confirm your email first'}>
      <h1>{input.status === 'unsubscribed' ? 'You are unsubscribed' : 'Confirm your email first'}</h1>
      {message}
    </Page>,
    { status: input.httpStatus ?? 200 },
  );
}

const LINK_FAILURES: LinkFailureCopy = {
  expired: {
    title: 'This link has expired',
    message:
      'This link has expired — ask for a new one. “Not a fit” links stop working after a while, when you unsubscribe or sign up again, and when you revoke your links. Use the link beside a posting in a more recent Scout email, or enter your address in the signup form on Scout’s home page: Scout emails you a link to manage your subscription. Nothing was recorded.',
  },
  'bad-signature': {
    title: 'This link is not valid',
    message:
      'The link looks incomplete or changed. Open the “Not a fit” link straight from a Scout email; some mail apps break long links when they are copied. Nothing was recorded.',
  },
  malformed: {
    title: 'This link is not valid',
    message:
      'The link looks incomplete. Open the “Not a fit” link straight from a Scout email; some mail apps break long links when they are copied. Nothing was recorded.',
  },
  'wrong-purpose': {
    title: 'This is not a “Not a fit” link',
    message: 'This link was made for something else. Use the “Not a fit” link beside a posting in a Scout email. Nothing was recorded.',
  },
};

/** The token did not open anything: 400, no button. */
export const notAFitLinkFailedPage = (reason: LinkFailure) => linkFailedPage(LINK_FAILURES, reason);

/** A request the page's button could not have sent: from another site (403), too big (413), not a form (415). */
export function notAFitRefusedPage(status: 403 | 413 | 415): Promise<Response> {
  const message =
    status === 403
      ? 'This request did not come from Scout’s own page.'
      : status === 413
        ? 'The request sent more than Scout accepts.'
        : 'Scout expected the button’s form.';
  return pageResponse(
    <ErrorPage title={status === 403 ? 'Refused' : 'That request could not be read'}>
      <p>{message} Nothing was recorded. Open the “Not a fit” link from your email and press the button there.</p>
    </ErrorPage>,
    { status },
  );
}

/** Our fault, not the link's: the subscriber may try again. */
export const notAFitServerErrorPage = (): Promise<Response> => serverErrorResponse('Your feedback could not be recorded.');
