import type { ConfirmFailure } from './confirm';
import { errorPage, html, htmlPageResponse, serverErrorPage, type Html } from '../http/html-page';
import { LINK_LIFETIME_DAYS } from '../subscribers/link-token';
import type { Subscriber } from '../subscribers/subscriber';

/**
 * The pages of /confirm. GET only ever shows `askConfirmPage` (or why it cannot): mail scanners
 * open every link in an email, so only the button's POST confirms.
 */

type Preferences = Pick<Subscriber, 'keywords' | 'excludes' | 'minBudget' | 'mode'>;

const MODE_TEXT: Record<Subscriber['mode'], string> = {
  instant: 'an email as soon as a posting fits',
  daily: 'one digest of the best matches at 08:00 UTC',
};

/** What is being confirmed, so the mailbox's owner sees it before saying yes (the form that set it was anonymous). */
function preferencesList(preferences: Preferences): Html {
  const row = (term: string, value: string) => html`<li><strong>${term}:</strong> ${value}</li>`;
  return html`<ul>
${row('Keywords', preferences.keywords.join(', '))}
${preferences.excludes.length > 0 ? row('Excludes', preferences.excludes.join(', ')) : null}
${preferences.minBudget !== null ? row('Minimum budget', preferences.minBudget.toLocaleString('en-US')) : null}
${row('How often', MODE_TEXT[preferences.mode])}
</ul>`;
}

export function askConfirmPage(input: { token: string; maskedEmail: string | null; preferences: Preferences }): Response {
  const who = input.maskedEmail ? html` for <strong>${input.maskedEmail}</strong>` : html``;
  return htmlPageResponse({
    status: 200,
    title: 'Confirm your subscription',
    body: html`<h1>Confirm your subscription</h1>
<p>One click and Scout starts emailing job postings${who} that fit:</p>
${preferencesList(input.preferences)}
<form method="post" action="?token=${encodeURIComponent(input.token)}">
<button type="submit">Confirm my subscription</button>
</form>
<p class="fine">Not you, or changed your mind? Close this page: without a confirmation Scout sends nothing.</p>`,
  });
}

/** The answer to the one POST that confirmed: the only page a confirmation link ever shows a preferences link on. */
export function confirmedPage(input: { subscriber: Subscriber; preferencesUrl: string }): Response {
  const title = 'You are subscribed';
  return htmlPageResponse({
    status: 200,
    title,
    body: html`<h1>${title}</h1>
<p>Scout will send you ${MODE_TEXT[input.subscriber.mode]}. Every email has a link to change your preferences or unsubscribe.</p>
<p><a href="${input.preferencesUrl}">Change your preferences</a></p>`,
  });
}

const INVALID_LINK = html`<p>The link looks incomplete or changed. Open the confirmation link straight from the Scout email; some mail apps break long links when they are copied.</p>`;

const FAILURES: Record<ConfirmFailure, { status: number; title: string; message: Html }> = {
  expired: {
    status: 400,
    title: 'This confirmation link has expired',
    message: html`<p>Confirmation links work for ${LINK_LIFETIME_DAYS.confirm} days. <a href="/#signup">Sign up again</a> to get a new one.</p>`,
  },
  'bad-signature': { status: 400, title: 'This link is not valid', message: INVALID_LINK },
  malformed: { status: 400, title: 'This link is not valid', message: INVALID_LINK },
  'wrong-purpose': {
    status: 400,
    title: 'This is not a confirmation link',
    message: html`<p>This link was made for something else. Use the button in the email Scout sent when you signed up.</p>`,
  },
  'unknown-subscriber': {
    status: 404,
    title: 'No signup found',
    message: html`<p>There is no Scout signup behind this link any more. <a href="/#signup">Sign up again</a> if you want job alerts.</p>`,
  },
  outdated: {
    status: 400,
    title: 'This confirmation link is out of date',
    message: html`<p>Confirmation links now name the signup they confirm, and this one was sent before that. <a href="/#signup">Sign up again</a> to get a new one.</p>`,
  },
  superseded: {
    status: 409,
    title: 'A newer signup replaced this link',
    message: html`<p>This address was signed up again after this link was sent, so only the link in the newest confirmation email works. Look for that email, or <a href="/#signup">sign up again</a>.</p>`,
  },
  used: {
    status: 409,
    title: 'This link was already used',
    message: html`<p>Each confirmation link works once, and this one has. If you confirmed, Scout is emailing you, and every email has links to change your preferences or unsubscribe.</p>`,
  },
  unsubscribed: {
    status: 409,
    title: 'This address has unsubscribed',
    message: html`<p>This address unsubscribed after the link was sent, so the link cannot turn alerts back on. To subscribe again, <a href="/#signup">sign up</a> and confirm the new email.</p>`,
  },
};

/** Why the link did not work. Nothing was changed. */
export function confirmFailedPage(reason: ConfirmFailure): Response {
  const failure = FAILURES[reason];
  return errorPage(failure);
}

/** Our fault, not the link's: the visitor may try again. */
export function confirmServerErrorPage(): Response {
  return serverErrorPage('We could not confirm your subscription.');
}
