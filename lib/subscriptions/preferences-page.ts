import type { TokenCheck } from '../subscribers/link-token';
import { html, htmlPageResponse, serverErrorPage, type Html } from '../http/html-page';
import {
  MAX_EXCLUDES,
  MAX_KEYWORDS,
  MAX_KEYWORD_LENGTH,
  type PreferenceField,
  type PreferenceFieldErrors,
} from '../subscribers/preferences-schema';
import type { Subscriber, SubscriberStatus } from '../subscribers/subscriber';

/**
 * The pages of /preferences: the form (prefilled, or as the subscriber sent it with each error
 * next to its field), and every reason it cannot be shown. Plain HTML that works without script;
 * every value goes through the `html` tag's escaping.
 */

/** The form's fields as text, exactly as they are shown (and as a browser posts them back). */
export type PreferenceFormValues = Record<PreferenceField, string>;

export function formValuesOf(subscriber: Pick<Subscriber, 'keywords' | 'excludes' | 'minBudget' | 'mode'>): PreferenceFormValues {
  return {
    keywords: subscriber.keywords.join(', '),
    excludes: subscriber.excludes.join(', '),
    minBudget: subscriber.minBudget === null ? '' : String(subscriber.minBudget),
    mode: subscriber.mode,
  };
}

export type PreferencesFormPage = {
  status: number;
  token: string;
  maskedEmail: string | null;
  subscriberStatus: 'active' | 'paused';
  values: PreferenceFormValues;
  errors?: PreferenceFieldErrors;
  /** What just happened ("Saved", "Paused"), announced to screen readers. */
  notice?: string;
  unsubscribeLink: string;
  digestHourUtc: number;
};

const LABELS: Record<PreferenceField, string> = {
  keywords: 'Keywords',
  excludes: 'Exclude postings that mention',
  minBudget: 'Minimum budget (USD)',
  mode: 'How often to email you',
};

/** Where the error summary's link for each field lands. */
const TARGETS: Record<PreferenceField, string> = {
  keywords: 'keywords',
  excludes: 'excludes',
  minBudget: 'minBudget',
  mode: 'mode-instant',
};

/** The shell's stylesheet knows buttons and paragraphs; the form's parts are styled here (the CSP allows inline styles). */
const FORM_STYLE = `
.field{margin:0 0 20px}
.field label,legend{display:block;font-weight:600;margin:0 0 4px;color:var(--text)}
.hint{margin:0 0 8px;font-size:14px}
textarea,input[type=text]{display:block;width:100%;font:inherit;padding:9px 11px;border:1px solid var(--muted);border-radius:8px;background:var(--card);color:var(--text)}
textarea{min-height:4.5em;resize:vertical}
textarea:focus-visible,input:focus-visible{outline:3px solid var(--accent);outline-offset:1px}
[aria-invalid=true]{border-color:var(--danger);border-width:2px}
.field-error{margin:0 0 8px;color:var(--danger);font-weight:600;font-size:15px}
fieldset{margin:0 0 24px;padding:0;border:0}
legend{padding:0}
.choice{display:flex;gap:10px;align-items:flex-start;margin:8px 0}
.choice input{margin-top:5px;width:18px;height:18px;flex:none}
.choice label{font-weight:600;color:var(--text)}
.choice .hint{margin:0}
.notice{border-left:4px solid var(--accent);padding:10px 14px;margin:0 0 20px;background:var(--bg)}
.notice p{margin:0;color:var(--text)}
.error-summary{border:2px solid var(--danger);border-radius:8px;padding:14px 16px;margin:0 0 24px}
.error-summary h2{margin:0 0 8px;font-size:17px;color:var(--danger)}
.error-summary ul{margin:0;padding-left:20px}
.error-summary a{color:var(--danger);font-weight:600}
.status-form{border-top:1px solid var(--line);padding-top:20px}
button.secondary{background:transparent;color:var(--accent);border:2px solid var(--accent)}
.visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`.trim();

const STATUS_TEXT: Record<'active' | 'paused', Html> = {
  active: html`<strong>Active</strong> — Scout emails you postings that match.`,
  paused: html`<strong>Paused</strong> — Scout sends you nothing until you resume.`,
};

/** The form, prefilled with `values`; with `errors`, each message sits next to its field and the summary links to it. */
export function preferencesFormPage(page: PreferencesFormPage): Response {
  const errors = page.errors ?? {};
  const fieldsInError = (Object.keys(LABELS) as PreferenceField[]).filter((field) => errors[field]);
  const action = `?token=${encodeURIComponent(page.token)}`;
  const who = page.maskedEmail ? html` for <strong>${page.maskedEmail}</strong>` : html``;
  const digestHour = `${String(page.digestHourUtc).padStart(2, '0')}:00 UTC`;

  const summary =
    fieldsInError.length > 0
      ? html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1">
<h2 id="error-summary-title">Nothing was saved: ${fieldsInError.length === 1 ? 'one field needs' : `${fieldsInError.length} fields need`} fixing</h2>
<ul>${fieldsInError.map((field) => html`<li><a href="#${TARGETS[field]}">${LABELS[field]}: ${errors[field]}</a></li>`)}</ul>
</div>`
      : null;
  const notice = page.notice ? html`<div class="notice" role="status"><p>${page.notice}</p></div>` : null;

  const statusForm =
    page.subscriberStatus === 'active'
      ? html`<form method="post" action="${action}" class="status-form">
<input type="hidden" name="action" value="pause">
<p>Going away? Pause, and Scout sends nothing until you come back. Postings waiting for your next digest are dropped.</p>
<button type="submit" class="secondary">Pause emails</button>
</form>`
      : html`<form method="post" action="${action}" class="status-form">
<input type="hidden" name="action" value="resume">
<p>Resume, and Scout emails you new matching postings again.</p>
<button type="submit">Resume emails</button>
</form>`;

  return htmlPageResponse({
    status: page.status,
    title: fieldsInError.length > 0 ? 'Error: Your preferences' : 'Your preferences',
    styles: FORM_STYLE,
    body: html`<h1>Your Scout preferences</h1>
<p>Settings${who}. Status: ${STATUS_TEXT[page.subscriberStatus]}</p>
${notice}${summary}
<form method="post" action="${action}">
<input type="hidden" name="action" value="save">
${textField({
  field: 'keywords',
  value: page.values.keywords,
  error: errors.keywords,
  hint: `Postings that mention any of these. Separate them with commas or new lines; up to ${MAX_KEYWORDS}, each up to ${MAX_KEYWORD_LENGTH} characters.`,
  multiline: true,
  required: true,
})}
${textField({
  field: 'excludes',
  value: page.values.excludes,
  error: errors.excludes,
  hint: `Optional. Scout skips postings that mention any of these; up to ${MAX_EXCLUDES}.`,
  multiline: true,
})}
${textField({
  field: 'minBudget',
  value: page.values.minBudget,
  error: errors.minBudget,
  hint: 'Optional. Postings that state a lower fixed budget are skipped. Leave empty for no minimum.',
  inputMode: 'decimal',
})}
${modeField({ value: page.values.mode, error: errors.mode, digestHour })}
<button type="submit">Save preferences</button>
</form>
${statusForm}
<p class="fine"><a href="${page.unsubscribeLink}">Unsubscribe from Scout</a></p>`,
  });
}

function errorLine(field: string, error: string | undefined): Html | null {
  return error ? html`<p class="field-error" id="${field}-error"><span class="visually-hidden">Error: </span>${error}</p>` : null;
}

function textField(input: {
  field: PreferenceField;
  value: string;
  error: string | undefined;
  hint: string;
  multiline?: boolean;
  required?: boolean;
  inputMode?: string;
}): Html {
  const { field } = input;
  const describedBy = input.error ? `${field}-hint ${field}-error` : `${field}-hint`;
  const invalid = input.error ? html` aria-invalid="true"` : html``;
  const required = input.required ? html` required` : html``;
  const control = input.multiline
    ? html`<textarea id="${field}" name="${field}" rows="3" aria-describedby="${describedBy}"${invalid}${required}>${input.value}</textarea>`
    : html`<input type="text" id="${field}" name="${field}" value="${input.value}" inputmode="${input.inputMode ?? 'text'}" autocomplete="off" aria-describedby="${describedBy}"${invalid}${required}>`;
  return html`<div class="field">
<label for="${field}">${LABELS[field]}</label>
<p class="hint" id="${field}-hint">${input.hint}</p>
${errorLine(field, input.error)}${control}
</div>`;
}

function modeField(input: { value: string; error: string | undefined; digestHour: string }): Html {
  const choices = [
    { value: 'instant', label: 'Instant alerts', hint: 'An email soon after a matching posting appears.' },
    { value: 'daily', label: 'Daily digest', hint: `One email a day, from ${input.digestHour}, with the best matches.` },
  ];
  const invalid = input.error ? html` aria-invalid="true"` : html``;
  return html`<fieldset>
<legend>${LABELS.mode}</legend>
${errorLine('mode', input.error)}${choices.map((choice) => {
    const id = `mode-${choice.value}`;
    const describedBy = input.error ? `${id}-hint mode-error` : `${id}-hint`;
    const checked = input.value === choice.value ? html` checked` : html``;
    return html`<div class="choice">
<input type="radio" id="${id}" name="mode" value="${choice.value}" aria-describedby="${describedBy}"${checked}${invalid} required>
<div><label for="${id}">${choice.label}</label><p class="hint" id="${id}-hint">${choice.hint}</p></div>
</div>
`;
  })}</fieldset>`;
}

/** Why the form is not there for this subscriber. GET answers 200 (the page is the answer); a refused POST 409. */
export function preferencesUnavailablePage(input: { status: SubscriberStatus | 'unknown'; httpStatus?: number }): Response {
  switch (input.status) {
    case 'unsubscribed':
      return htmlPageResponse({
        status: input.httpStatus ?? 200,
        title: 'You are unsubscribed',
        body: html`<h1>You are unsubscribed</h1>
<p>Scout does not email you any more, so there are no preferences to change, and this link cannot turn emails back on.</p>
<p>Want job alerts again? <a href="/">Sign up again</a> and confirm your email.</p>`,
      });
    case 'pending':
      return htmlPageResponse({
        status: input.httpStatus ?? 200,
        title: 'Confirm your email first',
        body: html`<h1>Confirm your email first</h1>
<p>Your subscription is not confirmed yet. Open the confirmation link Scout emailed you; after that you can change your preferences here.</p>`,
      });
    case 'unknown':
      return htmlPageResponse({
        status: 404,
        title: 'No subscription found',
        tone: 'error',
        body: html`<h1>No subscription found</h1>
<p>There is no Scout subscription behind this link any more, so Scout will not email you.</p>`,
      });
    default:
      return htmlPageResponse({
        status: input.httpStatus ?? 409,
        title: 'Preferences unavailable',
        tone: 'error',
        body: html`<h1>These preferences cannot be changed</h1>
<p>This subscription is in a state the preferences page does not handle. Nothing was changed.</p>`,
      });
  }
}

type LinkFailure = Extract<TokenCheck, { ok: false }>['reason'];

const LINK_FAILURES: Record<LinkFailure, { title: string; message: Html }> = {
  expired: {
    title: 'This link has expired',
    message: html`<p>Preference links stop working after a while. Use the preferences link in a more recent Scout email. Nothing was changed.</p>`,
  },
  'bad-signature': {
    title: 'This link is not valid',
    message: html`<p>The link looks incomplete or changed. Open the preferences link straight from a Scout email; some mail apps break long links when they are copied. Nothing was changed.</p>`,
  },
  malformed: {
    title: 'This link is not valid',
    message: html`<p>The link looks incomplete. Open the preferences link straight from a Scout email; some mail apps break long links when they are copied. Nothing was changed.</p>`,
  },
  'wrong-purpose': {
    title: 'This is not a preferences link',
    message: html`<p>This link was made for something else. Use the preferences link at the bottom of any Scout email. Nothing was changed.</p>`,
  },
};

/** The token did not open anything: 400, no form. */
export function preferencesLinkFailedPage(reason: LinkFailure): Response {
  const failure = LINK_FAILURES[reason];
  return htmlPageResponse({ status: 400, title: failure.title, tone: 'error', body: html`<h1>${failure.title}</h1>\n${failure.message}` });
}

/** A request the form could not have sent (too big, not form-encoded, unknown action). Nothing was changed. */
export function preferencesBadRequestPage(input: { status: 400 | 413 | 415; message: string }): Response {
  const title = input.status === 413 ? 'That was too much to save' : 'That request could not be read';
  return htmlPageResponse({
    status: input.status,
    title,
    tone: 'error',
    body: html`<h1>${title}</h1>
<p>${input.message} Nothing was changed. Go back to the preferences page and try again.</p>`,
  });
}

/** Our fault, not the link's: the subscriber may try again. */
export function preferencesServerErrorPage(): Response {
  return serverErrorPage('Your preferences could not be loaded or saved.');
}
