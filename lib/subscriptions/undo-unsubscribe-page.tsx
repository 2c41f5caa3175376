import type { ReactNode } from 'react';
import { ErrorPage, Page, pageResponse, serverErrorResponse } from '../http/page';
import { UNDO_WINDOW_DAYS, type UndoFailure } from './undo-unsubscribe';
import type { SubscriberStatus } from '../subscribers/subscriber';

/** The pages of /unsubscribe/undo. GET only asks (link previews open links); the button's POST gives the subscription back. */

export function askUndoPage(input: { token: string }): Promise<Response> {
  return pageResponse(
    <Page title="Undo unsubscribe">
      <h1>Subscribe again?</h1>
      <p>Scout will email you as before, with the same preferences.</p>
      <form method="post" action={`?token=${encodeURIComponent(input.token)}`}>
        <button type="submit">Undo my unsubscribe</button>
      </form>
      <p className="fine">Close this page to stay unsubscribed.</p>
    </Page>,
    { status: 200 },
  );
}

export function undonePage(input: { status: SubscriberStatus; alreadyUndone: boolean }): Promise<Response> {
  const paused = input.status === 'paused';
  return pageResponse(
    <Page title="Subscribed again">
      <h1>{input.alreadyUndone ? 'You are still subscribed' : 'You are subscribed again'}</h1>
      <p>
        {paused
          ? 'Your subscription is back, paused as it was: resume it from the preferences link in any Scout email.'
          : 'Scout will email you new matching postings again, with your preferences as they were. Postings dropped when you unsubscribed are not sent.'}
      </p>
    </Page>,
    { status: 200 },
  );
}

const SIGN_UP_AGAIN = (
  <>
    {' '}
    To get Scout's emails, <a href="/#signup">sign up again</a>.
  </>
);

const FAILURES: Record<UndoFailure, { status: number; title: string; message: ReactNode }> = {
  expired: {
    status: 410,
    title: 'This undo link has expired',
    message: (
      <p>
        Undo works for {UNDO_WINDOW_DAYS} days after unsubscribing, and that time has passed. You stay unsubscribed.{SIGN_UP_AGAIN}
      </p>
    ),
  },
  stale: {
    status: 409,
    title: 'This undo link no longer applies',
    message: (
      <p>
        Something happened to this subscription after the unsubscribe this link would undo (another unsubscribe, or a new signup), so it
        changes nothing.{SIGN_UP_AGAIN}
      </p>
    ),
  },
  'not-undoable': {
    status: 409,
    title: 'There is nothing to undo',
    message: <p>The subscription was never confirmed, so there is nothing to give back.{SIGN_UP_AGAIN}</p>,
  },
  'unknown-subscriber': {
    status: 404,
    title: 'No subscription found',
    message: <p>There is no Scout subscription behind this link any more.{SIGN_UP_AGAIN}</p>,
  },
  'bad-signature': {
    status: 400,
    title: 'This link is not valid',
    message: <p>The link looks incomplete or changed. Nothing was changed.</p>,
  },
  malformed: {
    status: 400,
    title: 'This link is not valid',
    message: <p>The link looks incomplete or changed. Nothing was changed.</p>,
  },
  'wrong-purpose': {
    status: 400,
    title: 'This is not an undo link',
    message: <p>This link was made for something else. Nothing was changed.</p>,
  },
};

/** Why the undo did nothing. Nothing was changed. */
export function undoFailedPage(reason: UndoFailure): Promise<Response> {
  const failure = FAILURES[reason];
  return pageResponse(<ErrorPage title={failure.title}>{failure.message}</ErrorPage>, { status: failure.status });
}

export const undoServerErrorPage = (): Promise<Response> => serverErrorResponse('We could not undo your unsubscribe.');
