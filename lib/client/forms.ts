import { PREVIEW_DEBOUNCE_MS, PREVIEW_FIELDS } from '../preview/preview';
import { PREVIEW_IDLE, PREVIEW_UNAVAILABLE } from '../preview/preview-words';
import { DEFAULT_TIMEZONE } from '../subscribers/default-time-zone';
import { emailTypoSuggestion } from '../subscribers/email-typo';
import { EMAIL_SUGGESTION_HINT_ID, EMAIL_SUGGESTION_WORDS as WORDS } from '../subscriptions/email-suggestion-words';
import { RESEND_AFTER_SEC, resendHint } from '../subscriptions/resend-wait';
import { clearQueryError, followLists, isListField, showQueryError, somethingToMatch } from './query-in-place';

/**
 * The form script of every page with a form it makes better (the landing page's signup form, the
 * preferences form), bundled by scripts/build-client.mjs into public/scout-forms.js. Every form
 * works without it. With it:
 *   - the time zone select starts at the browser's own zone while it still shows the default;
 *   - the preview panel follows the typing: PREVIEW_DEBOUNCE_MS after the last change to a field a
 *     preview reads, one POST /api/preview as JSON, whose `html` (the panel's content, rendered
 *     and escaped on the server) replaces the live region's content; a request still in flight is
 *     aborted by the next one, and the Preview button asks at once instead of loading a page;
 *   - the signup form's email field, once left looking like a typo (the server's own check,
 *     lib/subscribers/email-typo.ts), offers the correction: "Use …" changes the field, "Keep …"
 *     sends the address as confirmed so the server does not ask again;
 *   - the landing page's signup answers in place: the form is posted exactly as without a script
 *     (form-encoded, with the button pressed) and the form or answer in the page the server sends
 *     back replaces it. The server stays the one place that renders errors, its typo question,
 *     "Check your inbox", "Change it" and "Send it again"; here "Send it again" counts down first.
 * Everything is listened for on the document, so a form swapped in works like the first.
 */

const NETWORK_ERROR = 'Scout could not be reached. Check your connection and try again.';
const UNKNOWN_ERROR = 'Something went wrong on our side. Please try again in a minute.';
const PREVIEWED: readonly string[] = PREVIEW_FIELDS;

type FormField = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | HTMLButtonElement;

const isField = (target: EventTarget | null): target is FormField =>
  target instanceof HTMLInputElement ||
  target instanceof HTMLSelectElement ||
  target instanceof HTMLTextAreaElement ||
  target instanceof HTMLButtonElement;

/** The form with a preview panel a field belongs to. */
const previewFormOf = (field: FormField): HTMLFormElement | null => (field.form?.hasAttribute('data-preview-form') ? field.form : null);

const isSignupEmail = (target: EventTarget | null): target is HTMLInputElement =>
  target instanceof HTMLInputElement && target.name === 'email' && Boolean(target.form?.matches('.signup-form'));

function line(className: string, text: string): HTMLParagraphElement {
  const p = document.createElement('p');
  p.className = className;
  p.textContent = text;
  return p;
}

// ---------- the browser's time zone ----------

/** The browser's own zone, while the select still shows the default; a zone the list lacks (another spelling) is added. */
function preselectBrowserZone(form: HTMLFormElement) {
  const select = form.querySelector<HTMLSelectElement>('select[data-browser-zone]');
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!select || !zone || select.value !== DEFAULT_TIMEZONE || zone === DEFAULT_TIMEZONE) return;
  if (![...select.options].some((option) => option.value === zone)) select.add(new Option(zone.replaceAll('_', ' '), zone), 1);
  select.value = zone;
  const note = select.dataset.browserZoneNote;
  const hint = document.getElementById(`${select.id}-hint`);
  if (note && hint) hint.textContent = `${hint.textContent ?? ''} ${note}`;
}

// ---------- the preview ----------

const previews = new WeakMap<HTMLFormElement, { timer?: ReturnType<typeof setTimeout>; inFlight: AbortController | null }>();

const previewOf = (form: HTMLFormElement) => {
  let state = previews.get(form);
  if (!state) previews.set(form, (state = { inFlight: null }));
  return state;
};

/** The fields a preview reads, as JSON; the weekday checkboxes as a list, left out when none is ticked (the schema's default). */
function previewFields(form: HTMLFormElement): Record<string, unknown> {
  const data = new FormData(form);
  const fields: Record<string, unknown> = {};
  for (const name of PREVIEW_FIELDS) {
    if (name === 'weekdays') {
      const days = data.getAll(name);
      if (days.length > 0) fields[name] = days;
    } else if (data.has(name)) fields[name] = data.get(name);
  }
  return fields;
}

function schedulePreview(form: HTMLFormElement) {
  const state = previewOf(form);
  clearTimeout(state.timer);
  state.timer = setTimeout(() => void preview(form), PREVIEW_DEBOUNCE_MS);
}

async function preview(form: HTMLFormElement) {
  const region = form.querySelector<HTMLElement>('[data-preview-region]');
  if (!region) return;
  const state = previewOf(form);
  clearTimeout(state.timer);
  state.inFlight?.abort();
  state.inFlight = null;
  const fields = previewFields(form);
  // Nothing to match yet: no request, the panel says what it will show.
  if (!somethingToMatch(fields)) {
    region.removeAttribute('aria-busy');
    region.replaceChildren(line('hint', PREVIEW_IDLE));
    return;
  }
  const controller = new AbortController();
  state.inFlight = controller;
  region.setAttribute('aria-busy', 'true');
  let html: string | null;
  let answer: PreviewAnswer | null = null;
  try {
    const response = await fetch('/api/preview', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(fields),
      signal: controller.signal,
    });
    answer = (await response.json()) as PreviewAnswer | null;
    html = typeof answer?.html === 'string' ? answer.html : null;
  } catch {
    html = null;
  }
  // A newer preview started meanwhile: its answer is the one to show.
  if (state.inFlight !== controller) return;
  state.inFlight = null;
  region.removeAttribute('aria-busy');
  queryAnswered(form, answer);
  // The server's rendering of the panel's content (every text escaped there); the region is aria-live.
  if (html === null) region.replaceChildren(line('field-error', PREVIEW_UNAVAILABLE));
  else region.innerHTML = html;
}

/** What POST /api/preview answers that the page reads: the panel, and a query's error with where it is. */
type PreviewAnswer = { html?: unknown; preview?: unknown; fields?: { query?: unknown }; queryAt?: unknown };

/** The query field hears the preview's verdict on it: an error in place, or none once it reads. */
function queryAnswered(form: HTMLFormElement, answer: PreviewAnswer | null) {
  const message = answer?.fields?.query;
  if (typeof message === 'string') showQueryError(form, message, typeof answer?.queryAt === 'number' ? answer.queryAt : 0);
  else if (answer?.preview) clearQueryError(form);
}

// ---------- "Did you mean …?" as the email field is left ----------

const hintOf = (field: HTMLInputElement) => field.form?.querySelector<HTMLElement>(`#${EMAIL_SUGGESTION_HINT_ID}`) ?? null;

function describedBy(field: HTMLInputElement, id: string, on: boolean) {
  const ids = (field.getAttribute('aria-describedby') ?? '').split(' ').filter((each) => each && each !== id);
  if (on) ids.push(id);
  if (ids.length > 0) field.setAttribute('aria-describedby', ids.join(' '));
  else field.removeAttribute('aria-describedby');
}

function hideSuggestion(field: HTMLInputElement) {
  hintOf(field)?.remove();
  describedBy(field, EMAIL_SUGGESTION_HINT_ID, false);
}

/** The address the visitor chose to keep as typed: sent as `confirmedEmail`, so the server does not ask again. */
const keptOf = (form: HTMLFormElement) => form.querySelector<HTMLInputElement>('input[type="hidden"][name="confirmedEmail"]');

function keep(field: HTMLInputElement, typed: string) {
  const form = field.form;
  if (!form) return;
  const kept = keptOf(form) ?? Object.assign(document.createElement('input'), { type: 'hidden', name: 'confirmedEmail' });
  kept.value = typed;
  field.after(kept);
}

function linkButton(text: string, onClick: () => void): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'link-button';
  button.textContent = text;
  button.addEventListener('click', onClick);
  return button;
}

function offerSuggestion(field: HTMLInputElement) {
  const typed = field.value.trim();
  const suggested = emailTypoSuggestion(field.value);
  const shown = hintOf(field);
  const form = field.form;
  if (!form || !suggested || keptOf(form)?.value === typed) return hideSuggestion(field);
  // The same question is already there: left alone, so a click on its buttons is not lost to a rebuild.
  if (shown?.dataset.typed === typed) return;
  shown?.remove();
  const box = document.createElement('div');
  box.id = EMAIL_SUGGESTION_HINT_ID;
  box.className = 'email-suggestion';
  box.setAttribute('role', 'status');
  box.dataset.typed = typed;
  const address = document.createElement('strong');
  address.textContent = suggested;
  const use = linkButton(WORDS.use(suggested), () => {
    field.value = suggested;
    hideSuggestion(field);
    field.focus();
  });
  const keepIt = linkButton(WORDS.keep(typed), () => {
    keep(field, typed);
    hideSuggestion(field);
    field.focus();
  });
  const question = document.createElement('p');
  question.className = 'hint';
  question.append(`${WORDS.question} `, address, '? ', use, ' · ', keepIt);
  box.append(question);
  (field.parentElement ?? form).append(box);
  describedBy(field, EMAIL_SUGGESTION_HINT_ID, true);
}

/** Another address: a kept one or the server's question no longer applies; a suggestion shown follows the typing. */
function emailChanged(field: HTMLInputElement) {
  const form = field.form;
  if (!form) return;
  const kept = keptOf(form);
  if (kept && kept.value !== field.value.trim()) kept.remove();
  const asked = form.querySelector('.email-suggestion[role="alert"]');
  if (asked) {
    describedBy(field, asked.id, false);
    field.removeAttribute('aria-invalid');
    asked.remove();
  }
  if (hintOf(field)) offerSuggestion(field);
}

// ---------- the signup answered in place ----------

const sending = new WeakSet<HTMLFormElement>();

/** The form as its post would carry it, with the button pressed ("Use …", "Change it", "Send it again"). */
function formBody(form: HTMLFormElement, submitter: HTMLElement | null): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of new FormData(form, submitter)) if (typeof value === 'string') body.append(name, value);
  return body;
}

async function answerInPlace(region: HTMLElement, form: HTMLFormElement, submitter: HTMLElement | null) {
  if (sending.has(form)) return;
  sending.add(form);
  form.setAttribute('aria-busy', 'true');
  let page: Document | null;
  try {
    // The attribute, not form.action: the form's own buttons named "action" (Change it, Send it again) shadow that property.
    const url = form.getAttribute('action') ?? '/api/signup';
    const response = await fetch(url, { method: 'POST', headers: { accept: 'text/html' }, body: formBody(form, submitter) });
    page = new DOMParser().parseFromString(await response.text(), 'text/html');
  } catch {
    page = null;
  }
  sending.delete(form);
  form.removeAttribute('aria-busy');
  const answer = page?.querySelector<HTMLElement>('main form.signup-form, main .signup-done');
  if (answer) show(region, document.importNode(answer, true));
  else refused(form, page ? (page.querySelector('main h1 + p')?.textContent ?? UNKNOWN_ERROR) : NETWORK_ERROR);
}

function show(region: HTMLElement, answer: HTMLElement) {
  const done = answer.matches('.signup-done');
  // The answer's heading is its page's h1; in the landing page's signup section it is a section's heading.
  const heading = done ? answer.querySelector('h1') : null;
  if (heading) {
    const h2 = document.createElement('h2');
    for (const { name, value } of heading.attributes) h2.setAttribute(name, value);
    h2.append(...heading.childNodes);
    heading.replaceWith(h2);
  }
  region.replaceChildren(answer);
  if (done) {
    countDown(answer);
    answer.querySelector<HTMLElement>('h2')?.focus();
  } else answer.querySelector<HTMLElement>('[autofocus], [aria-invalid="true"]')?.focus();
}

/** "Send it again" waits out the mailbox's window, counting down in its hint. */
function countDown(done: HTMLElement) {
  const button = done.querySelector<HTMLButtonElement>('button[name="action"][value="resend"]');
  const hint = done.querySelector<HTMLElement>('#signup-resend-hint');
  if (!button || !hint) return;
  const until = Date.now() + RESEND_AFTER_SEC * 1000;
  const tick = () => {
    const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    button.disabled = left > 0;
    hint.textContent = resendHint(left);
    if (left > 0 && done.isConnected) setTimeout(tick, 1000);
  };
  tick();
}

/** The submission as a whole was refused (the network, a limit): said at the top of the form, which stays as typed. */
function refused(form: HTMLFormElement, message: string) {
  form.querySelector('[data-refusal]')?.remove();
  const alert = line('form-error', message);
  alert.setAttribute('role', 'alert');
  alert.dataset.refusal = '';
  form.prepend(alert);
}

// ---------- wiring ----------

function changed(event: Event) {
  const field = event.target;
  if (!isField(field)) return;
  if (isSignupEmail(field)) emailChanged(field);
  const form = previewFormOf(field);
  // The two ways of saying it stay in step: the lists, edited, are the query.
  if (form && isListField(field.name)) followLists(form);
  if (form && PREVIEWED.includes(field.name)) schedulePreview(form);
}

// Every control fires `input` as it changes (text as typed, selects, radios and checkboxes as picked).
document.addEventListener('input', changed);

// Leaving the email field is when a typo is worth a word: while typing, every address is half-wrong.
document.addEventListener('focusout', (event) => {
  if (isSignupEmail(event.target)) offerSuggestion(event.target);
});

// The Preview button asks at once, in place, instead of posting the form to a page of its own.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button') : null;
  const form = button ? previewFormOf(button) : null;
  if (!button || !form || button.type !== 'submit') return;
  if (button.getAttribute('formaction') !== '/api/preview' && button.name !== 'preview') return;
  event.preventDefault();
  void preview(form);
});

document.addEventListener('submit', (event) => {
  const form = event.target;
  const region = form instanceof HTMLFormElement ? form.closest<HTMLElement>('[data-signup-region]') : null;
  if (!region || !(form instanceof HTMLFormElement) || event.defaultPrevented) return;
  event.preventDefault();
  void answerInPlace(region, form, event.submitter);
});

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-preview-form]')) preselectBrowserZone(form);
