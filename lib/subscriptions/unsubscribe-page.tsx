import type { ReactNode } from 'react';
import { ErrorPage, Page, pageResponse, serverErrorResponse } from '../http/page';
import type { UnsubscribeFailure } from './unsubscribe';
import { UNDO_WINDOW_DAYS } from './undo-unsubscribe';

/**
 * The pages of /unsubscribe. GET only ever shows `askUnsubscribePage` (or why it cannot): mail
 * scanners open every link, so only the button's POST — or a mail client's RFC 8058 one-click
 * POST — changes anything.
 */

const ONE_CLICK_FIELD = 'List-Unsubscribe';
const ONE_CLICK_VALUE = 'One-Click';

/** What else the page offers beside the button: only to a current link of a subscriber who has those choices. */
export type UnsubscribeOffers = { pause: boolean; weekly: boolean };
export const NO_OFFERS: UnsubscribeOffers = { pause: false, weekly: false };

/** The actions the page's other buttons post in `action`; a post without one (RFC 8058's) unsubscribes. */
export const KEEP_ACTIONS = ['pause', 'weekly'] as const;
export type KeepAction = (typeof KEEP_ACTIONS)[number];

const actionOf = (token: string) => `?token=${encodeURIComponent(token)}`;

/** The one-click form: it posts the same body a one-click mail client sends. */
function UnsubscribeForm({ token, label = 'Unsubscribe' }: { token: string; label?: string }) {
  return (
    <form method="post" action={actionOf(token)}>
      <input type="hidden" name={ONE_CLICK_FIELD} value={ONE_CLICK_VALUE} />
      <button type="submit">{label}</button>
    </form>
  );
}

/** A way to get less mail without leaving: each its own POST, never a GET (scanners open links). */
function KeepForm({ token, action, label }: { token: string; action: KeepAction; label: string }) {
  return (
    <form method="post" action={actionOf(token)} className="alternative">
      <input type="hidden" name="action" value={action} />
      <button type="submit" className="secondary">
        {label}
      </button>
    </form>
  );
}

/** The question, with the one button, and beside it the gentler choices when they apply. */
export function AskUnsubscribeView({
  token,
  maskedEmail,
  offers = NO_OFFERS,
}: {
  token: string;
  maskedEmail: string | null;
  offers?: UnsubscribeOffers;
}) {
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
      <UnsubscribeForm token={token} />
      {offers.pause || offers.weekly ? (
        <section aria-labelledby="alternatives">
          <h2 id="alternatives">Or get less from Scout</h2>
          {offers.pause ? <KeepForm token={token} action="pause" label="Pause my emails" /> : null}
          {offers.weekly ? <KeepForm token={token} action="weekly" label="Send me one email a week instead" /> : null}
          <p className="fine">Paused, Scout sends nothing until you resume from the preferences link in any of its emails.</p>
        </section>
      ) : null}
      <p className="fine">Changed your mind? Close this page and nothing changes.</p>
    </Page>
  );
}

export const askUnsubscribePage = (input: { token: string; maskedEmail: string | null; offers?: UnsubscribeOffers }) =>
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

/**
 * After the POST that unsubscribed. `undoAction` (the undo link, path and query): this request's own
 * opt-out ended a confirmed subscription, so the page offers to give it back (a POST, for UNDO_WINDOW_DAYS).
 */
export function unsubscribedPage(input: { alreadyUnsubscribed: boolean; undoAction?: string | null }): Promise<Response> {
  return pageResponse(
    <Page title="Unsubscribed">
      <h1>You are unsubscribed</h1>
      {input.alreadyUnsubscribed ? (
        <p>You had already unsubscribed. Scout will not email you again.</p>
      ) : (
        <p>Scout will not send you any more job alerts or digests. Anything that was queued for you has been dropped.</p>
      )}
      {input.undoAction ? (
        <>
          <form method="post" action={input.undoAction}>
            <button type="submit" className="secondary">
              Undo
            </button>
          </form>
          <p className="fine">
            Unsubscribed by mistake? Undo works for {UNDO_WINDOW_DAYS} days, as long as you do not unsubscribe or sign up again in between.
          </p>
        </>
      ) : null}
    </Page>,
    { status: 200 },
  );
}

/** After "Pause" or "Weekly instead": what changed, and the button that still unsubscribes. */
export function keptSubscribedPage(input: { action: KeepAction; changed: boolean; token: string }): Promise<Response> {
  const title = input.action === 'pause' ? 'Your emails are paused' : 'One email a week';
  const message =
    input.action === 'pause'
      ? input.changed
        ? 'Scout will send you nothing until you resume from the preferences link in any Scout email.'
        : 'Your emails were already paused: Scout sends nothing until you resume.'
      : input.changed
        ? 'From now on Scout gathers your matches into one digest a week. Change the day from the preferences link in that email.'
        : 'You were already getting one digest a week.';
  return pageResponse(
    <Page title={title}>
      <h1>{title}</h1>
      <p>{message}</p>
      <p className="fine">Would you rather stop altogether?</p>
      <UnsubscribeForm token={input.token} label="Unsubscribe instead" />
    </Page>,
    { status: 200 },
  );
}

/** A "Pause" or "Weekly" that could not apply: an older link, or a subscriber without that choice. Nothing changed. */
export function keepRefusedPage(input: { token: string; reason: 'older-link' | 'not-subscribed' }): Promise<Response> {
  return pageResponse(
    <ErrorPage title="That choice is not available from this link">
      <p>
        {input.reason === 'older-link'
          ? 'This link comes from an older Scout email: it can still unsubscribe you, and nothing else. Use the link in a recent email to pause or change how often you hear from Scout.'
          : 'Only a confirmed subscription can be paused or made weekly. Nothing was changed.'}
      </p>
      <UnsubscribeForm token={input.token} />
    </ErrorPage>,
    { status: 409 },
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
