import type { ReactNode } from 'react';
import { ErrorPage, Page, pageResponse, serverErrorResponse } from '../http/page';
import type { SubscriberStatus } from '../subscribers/subscriber';
import { linkFailedPage, type LinkFailure, type LinkFailureCopy } from './link-failed-page';

/**
 * Every page /preferences answers instead of the form: the subscription cannot be edited, the link
 * opens nothing or was revoked, the request could not be read, or the store failed.
 */

const Unavailable = ({ title, heading, tone, children }: { title: string; heading?: string; tone?: 'error'; children: ReactNode }) => (
  <Page title={title} tone={tone}>
    <h1>{heading ?? title}</h1>
    {children}
  </Page>
);

/** Why the form is not there for this subscriber. GET answers 200 (the page is the answer); a refused POST 409. */
export function preferencesUnavailablePage(input: { status: SubscriberStatus | 'unknown'; httpStatus?: number }): Promise<Response> {
  switch (input.status) {
    case 'unsubscribed':
      return pageResponse(
        <Unavailable title="You are unsubscribed">
          <p>Scout does not email you any more, so there are no preferences to change, and this link cannot turn emails back on.</p>
          <p>
            Want job alerts again? <a href="/">Sign up again</a> and confirm your email.
          </p>
        </Unavailable>,
        { status: input.httpStatus ?? 200 },
      );
    case 'pending':
      return pageResponse(
        <Unavailable title="Confirm your email first">
          <p>
            Your subscription is not confirmed yet. Open the confirmation link Scout emailed you; after that you can change your preferences
            here.
          </p>
        </Unavailable>,
        { status: input.httpStatus ?? 200 },
      );
    case 'unknown':
      return pageResponse(
        <ErrorPage title="No subscription found">
          <p>There is no Scout subscription behind this link any more, so Scout will not email you.</p>
        </ErrorPage>,
        { status: 404 },
      );
    default:
      return pageResponse(
        <Unavailable title="Preferences unavailable" heading="These preferences cannot be changed" tone="error">
          <p>This subscription is in a state the preferences page does not handle. Nothing was changed.</p>
        </Unavailable>,
        { status: input.httpStatus ?? 409 },
      );
  }
}

/** How to get a fresh link when the one in hand is dead: the signup form mails one to a subscribed address, and only there. */
export const ASK_FOR_A_NEW_LINK =
  'To ask for a new one, enter your address in the signup form on Scout’s home page: Scout emails a link to manage your subscription to that address.';

const LINK_FAILURES: LinkFailureCopy = {
  expired: {
    title: 'This link has expired',
    message: `This link has expired — ask for a new one. Preference links stop working after a while, when you unsubscribe or sign up again, and when you revoke your links. ${ASK_FOR_A_NEW_LINK} Nothing was changed.`,
  },
  'bad-signature': {
    title: 'This link is not valid',
    message:
      'The link looks incomplete or changed. Open the preferences link straight from a Scout email; some mail apps break long links when they are copied. Nothing was changed.',
  },
  malformed: {
    title: 'This link is not valid',
    message:
      'The link looks incomplete. Open the preferences link straight from a Scout email; some mail apps break long links when they are copied. Nothing was changed.',
  },
  'wrong-purpose': {
    title: 'This is not a preferences link',
    message: 'This link was made for something else. Use the preferences link at the bottom of any Scout email. Nothing was changed.',
  },
};

/** After "Revoke my links": the link that asked is dead too, so no form, and no new link shown to whoever pressed. */
export const linksRevokedPage = () =>
  pageResponse(
    <Unavailable title="Your links are revoked">
      <p>
        Every link Scout has emailed you — preferences, archive, “Not a fit” — and your private feed URL no longer work, this page’s
        included. Unsubscribe links in old emails still unsubscribe.
      </p>
      <p>
        {ASK_FOR_A_NEW_LINK} <a href="/#signup">Go to the signup form</a>.
      </p>
    </Unavailable>,
    { status: 200 },
  );

/** The token did not open anything: 400, no form. */
export const preferencesLinkFailedPage = (reason: LinkFailure) => linkFailedPage(LINK_FAILURES, reason);

/** A request the form could not have sent (too big, not form-encoded, unknown action). Nothing was changed. */
export function preferencesBadRequestPage(input: { status: 400 | 403 | 413 | 415; message: string }): Promise<Response> {
  const title = input.status === 413 ? 'That was too much to save' : 'That request could not be read';
  return pageResponse(
    <ErrorPage title={title}>
      <p>{input.message} Nothing was changed. Go back to the preferences page and try again.</p>
    </ErrorPage>,
    { status: input.status },
  );
}

/** Our fault, not the link's: the subscriber may try again. */
export const preferencesServerErrorPage = (): Promise<Response> => serverErrorResponse('Your preferences could not be loaded or saved.');
