import type { ReactNode } from 'react';
import { ErrorPage, Page, pageResponse, serverErrorResponse } from '../http/page';
import type { UnsubscribeFailure } from './unsubscribe';

/**
 * The pages of /unsubscribe. GET only ever shows `askUnsubscribePage` (or why it cannot): mail
 * scanners open every link, so only the button's POST — or a mail client's RFC 8058 one-click
 * POST — changes anything.
 */

const ONE_CLICK_FIELD = 'List-Unsubscribe';
const ONE_CLICK_VALUE = 'One-Click';

/** The question, with the one button. The form posts the same body a one-click mail client sends. */
export function AskUnsubscribeView({ token, maskedEmail }: { token: string; maskedEmail: string | null }) {
  return (
    <Page title="Unsubscribe">
      <h1>Unsubscribe from Scout?</h1>
      <p>
        You will stop getting job alerts and daily digests
        {maskedEmail ? (
          <>
            {' for '}
            <strong>{maskedEmail}</strong>
          </>
        ) : null}
        . Postings already waiting for your next digest will not be sent.
      </p>
      <form method="post" action={`?token=${encodeURIComponent(token)}`}>
        <input type="hidden" name={ONE_CLICK_FIELD} value={ONE_CLICK_VALUE} />
        <button type="submit">Unsubscribe</button>
      </form>
      <p className="fine">Changed your mind? Close this page and nothing changes.</p>
    </Page>
  );
}

export const askUnsubscribePage = (input: { token: string; maskedEmail: string | null }) =>
  pageResponse(<AskUnsubscribeView {...input} />, { status: 200 });

export function alreadyUnsubscribedPage(): Promise<Response> {
  return pageResponse(
    <Page title="Already unsubscribed">
      <h1>You are already unsubscribed</h1>
      <p>Scout will not email you again.</p>
    </Page>,
    { status: 200 },
  );
}

export function unsubscribedPage(input: { alreadyUnsubscribed: boolean }): Promise<Response> {
  return pageResponse(
    <Page title="Unsubscribed">
      <h1>You are unsubscribed</h1>
      {input.alreadyUnsubscribed ? (
        <p>You had already unsubscribed. Scout will not email you again.</p>
      ) : (
        <p>Scout will not send you any more job alerts or digests. Anything that was queued for you has been dropped.</p>
      )}
    </Page>,
    { status: 200 },
  );
}

const FAILURES: Record<UnsubscribeFailure, { status: number; title: string; message: ReactNode }> = {
  expired: {
    status: 400,
    title: 'This link has expired',
    message: <p>Unsubscribe links stop working after a while. Use the unsubscribe link in a more recent Scout email.</p>,
  },
  'bad-signature': {
    status: 400,
    title: 'This link is not valid',
    message: (
      <p>
        The link looks incomplete or changed. Open the unsubscribe link straight from a Scout email; some mail apps break long links when
        they are copied.
      </p>
    ),
  },
  malformed: {
    status: 400,
    title: 'This link is not valid',
    message: (
      <p>
        The link looks incomplete. Open the unsubscribe link straight from a Scout email; some mail apps break long links when they are
        copied.
      </p>
    ),
  },
  'wrong-purpose': {
    status: 400,
    title: 'This is not an unsubscribe link',
    message: <p>This link was made for something else. Use the unsubscribe link at the bottom of any Scout email.</p>,
  },
  'unknown-subscriber': {
    status: 404,
    title: 'No subscription found',
    message: <p>There is no Scout subscription behind this link any more, so Scout will not email you.</p>,
  },
};

/** Why the link did not work. Nothing was changed. */
export function unsubscribeFailedPage(reason: UnsubscribeFailure): Promise<Response> {
  const failure = FAILURES[reason];
  return pageResponse(<ErrorPage title={failure.title}>{failure.message}</ErrorPage>, { status: failure.status });
}

/** Our fault, not the link's: the caller may try again. */
export const unsubscribeServerErrorPage = (): Promise<Response> => serverErrorResponse('We could not finish unsubscribing you.');
