'use client';

import { useEffect, useRef, useState, type ChangeEvent, type FocusEvent, type MouseEvent, type SubmitEvent } from 'react';
import {
  emptySignupValues,
  signupFormValuesOf,
  SignupFormView,
  type EmailSuggestion,
  type SignupFormValues,
} from '../lib/subscriptions/signup-form';
import { RESEND_AFTER_SEC, SignupReceivedView } from '../lib/subscriptions/signup-received';
import { emailTypoSuggestion } from '../lib/subscribers/email-typo';
import type { SignupFieldErrors } from '../lib/subscribers/signup-schema';
import { PREVIEW_DEBOUNCE_MS, PREVIEW_FIELDS, type Preview } from '../lib/preview/preview';
import { invalidPreview, type PreviewPanelState } from '../lib/preview/preview-panel';
import type { PreviewFieldErrors } from '../lib/preview/preview-input';
import { DEFAULT_TIMEZONE } from '../lib/subscribers/digest-schedule';

type Fields = Record<string, unknown>;

type State =
  | { kind: 'idle' }
  | { kind: 'sending'; errors: SignupFieldErrors; suggestion: EmailSuggestion | null }
  | { kind: 'invalid'; errors: SignupFieldErrors; suggestion: EmailSuggestion | null }
  | { kind: 'refused'; message: string }
  | Done;

/** Accepted: the address it went to, the signup as sent (for "Send it again" and "Change it"), and when a resend may be asked. */
type Done = { kind: 'done'; email: string; fields: Fields; resent: boolean; resendAt: number; busy: boolean; error: string | null };

const NETWORK_ERROR = 'Scout could not be reached. Check your connection and try again.';
const UNKNOWN_ERROR = 'Something went wrong on our side. Please try again in a minute.';

/**
 * The signup form, better with JavaScript: the same markup the server renders (it posts to
 * /api/signup on its own before this script loads), submitted with fetch as JSON so errors appear
 * next to their fields and the answer in place, without a reload. Values stay as typed.
 *
 * The email field suggests a correction when it is left looking like a typo (lib/subscribers/email-typo.ts,
 * the check the server makes too): "Use …" changes the field, "Keep …" sends the address as
 * confirmed so the server does not ask again. After signing up, the answer names the address, with
 * "Not you? Change it" (the form back as it was, the address field focused) and "Send it again"
 * (the same signup posted once more, `action: 'resend'`), which counts down RESEND_AFTER_SEC first.
 *
 * The preview panel follows the typing: PREVIEW_DEBOUNCE_MS after the last change to a field a
 * preview reads, one POST /api/preview (an older one still in flight is aborted, so a late answer
 * never replaces a newer one); the Preview button asks at once instead of loading a page. The time
 * zone starts as the browser's own while the select still shows the default.
 */
export function SignupForm({
  timeZones,
  defaultDigestHour,
  askAbout,
}: {
  timeZones: readonly string[];
  defaultDigestHour: number;
  /** The AI stage is on: "About you" is on the form. */
  askAbout: boolean;
}) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [preview, setPreview] = useState<PreviewPanelState>({ kind: 'idle' });
  const [previewBusy, setPreviewBusy] = useState(false);
  // The form's values when it is shown again ("Change it"), and a key that remounts it with them.
  const [values, setValues] = useState<SignupFormValues>(emptySignupValues);
  const [formKey, setFormKey] = useState(0);
  const [focusEmail, setFocusEmail] = useState(false);
  const [hint, setHint] = useState<EmailSuggestion | null>(null);
  const [keptEmail, setKeptEmail] = useState<string | null>(null);
  const [clock, setClock] = useState(() => Date.now());
  const formRef = useRef<HTMLFormElement>(null);
  const doneRef = useRef<HTMLHeadingElement>(null);
  const debounce = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const inFlight = useRef<AbortController | null>(null);

  useEffect(() => {
    if (state.kind === 'invalid') formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
    if (state.kind === 'idle' && formRef.current) {
      preselectBrowserZone(formRef.current);
      if (focusEmail) formRef.current.querySelector<HTMLInputElement>('input[name="email"]')?.focus();
    }
  }, [state.kind, focusEmail]);

  // Each answer (a signup, a resend) sets a new resendAt: focus its heading then, not at each tick of the countdown.
  const resendAt = state.kind === 'done' ? state.resendAt : 0;
  useEffect(() => {
    if (resendAt) doneRef.current?.focus();
  }, [resendAt]);

  // The resend countdown, one tick a second while it runs.
  useEffect(() => {
    if (resendAt <= Date.now()) return;
    const timer = setInterval(() => {
      setClock(Date.now());
      if (Date.now() >= resendAt) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [resendAt]);

  useEffect(
    () => () => {
      clearTimeout(debounce.current);
      inFlight.current?.abort();
    },
    [],
  );
  async function showPreview() {
    clearTimeout(debounce.current);
    const form = formRef.current;
    if (!form) return;
    const fields = fieldsOf(form, PREVIEW_FIELDS);
    inFlight.current?.abort();
    if (typeof fields.keywords !== 'string' || !fields.keywords.trim()) {
      inFlight.current = null;
      setPreviewBusy(false);
      setPreview({ kind: 'idle' });
      return;
    }
    const controller = new AbortController();
    inFlight.current = controller;
    setPreviewBusy(true);
    let next: PreviewPanelState;
    try {
      const response = await fetch('/api/preview', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(fields),
        signal: controller.signal,
      });
      const body = (await response.json().catch(() => null)) as { preview?: Preview; fields?: PreviewFieldErrors } | null;
      if (response.ok && body?.preview) next = { kind: 'shown', preview: body.preview };
      else if (response.status === 400 && body?.fields) next = invalidPreview(body.fields);
      else if (response.status === 429) next = { kind: 'rate-limited', retryAfterSec: Number(response.headers.get('retry-after')) || 60 };
      else if (response.status === 503) next = { kind: 'busy', retryAfterSec: Number(response.headers.get('retry-after')) || 60 };
      else next = { kind: 'unavailable' };
    } catch {
      next = { kind: 'unavailable' };
    }
    // A newer preview started meanwhile: its answer is the one to show.
    if (inFlight.current !== controller) return;
    inFlight.current = null;
    setPreview(next);
    setPreviewBusy(false);
  }

  // A change on the form comes from one of its fields, bubbled up.
  function changed(event: ChangeEvent<HTMLFormElement, HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) {
    const name = event.target.name;
    const field: EventTarget = event.target;
    if (field instanceof HTMLInputElement && name === 'email') {
      emailChanged(field.value);
      return;
    }
    if (!(PREVIEW_FIELDS as readonly string[]).includes(name)) return;
    clearTimeout(debounce.current);
    debounce.current = setTimeout(() => void showPreview(), PREVIEW_DEBOUNCE_MS);
  }

  /** Another address: an answer about the old one no longer applies; a suggestion shown follows the typing (and goes once fixed). */
  function emailChanged(value: string) {
    setKeptEmail(null);
    if (state.kind === 'invalid' && state.suggestion) {
      const { email: _email, ...others } = state.errors;
      setState({ kind: 'invalid', errors: others, suggestion: null });
    }
    if (hint) suggestFor(value, null);
  }

  function suggestFor(value: string, kept: string | null) {
    const suggested = emailTypoSuggestion(value);
    setHint(suggested && value.trim() !== kept ? { typed: value.trim(), suggested, asked: false } : null);
  }

  // Leaving the email field is when a typo is worth a word: while typing, every address is half-wrong.
  function left(event: FocusEvent<HTMLFormElement>) {
    const field: EventTarget = event.target;
    if (field instanceof HTMLInputElement && field.name === 'email') suggestFor(field.value, keptEmail);
  }

  function useSuggestion() {
    const field = formRef.current?.querySelector<HTMLInputElement>('input[name="email"]');
    if (!field || !hint) return;
    field.value = hint.suggested;
    setHint(null);
    field.focus();
  }

  function keepEmail() {
    if (!hint) return;
    setKeptEmail(hint.typed);
    setHint(null);
    formRef.current?.querySelector<HTMLInputElement>('input[name="email"]')?.focus();
  }

  function previewNow(event: MouseEvent<HTMLButtonElement>) {
    event.preventDefault();
    void showPreview();
  }

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (state.kind === 'sending') return;
    // The button pressed rides along: "Use …" and "Use … anyway" send their address as confirmedEmail.
    const fields = fieldsOf(event.currentTarget, undefined, submitterOf(event));
    const asked = state.kind === 'invalid' ? state : null;
    setState({ kind: 'sending', errors: asked?.errors ?? {}, suggestion: asked?.suggestion ?? null });
    const answer = await postSignup(fields);
    if (answer.kind === 'accepted') {
      setHint(null);
      setClock(Date.now());
      setState({
        kind: 'done',
        email: addressOf(fields),
        fields,
        resent: false,
        resendAt: Date.now() + RESEND_AFTER_SEC * 1000,
        busy: false,
        error: null,
      });
    } else if (answer.kind === 'invalid')
      setState({
        kind: 'invalid',
        errors: answer.fields,
        suggestion: answer.emailSuggestion ? { typed: text(fields.email).trim(), suggested: answer.emailSuggestion, asked: true } : null,
      });
    else setState({ kind: 'refused', message: answer.message });
  }

  /** The answer's own form: "Change it" brings the signup form back as it was, "Send it again" posts the signup once more. */
  async function again(event: SubmitEvent<HTMLFormElement>, current: Done) {
    event.preventDefault();
    const fields = fieldsOf(event.currentTarget, undefined, submitterOf(event));
    if (fields.action === 'change') {
      setValues(signupFormValuesOf(textFields(current.fields)));
      setKeptEmail(null);
      setFormKey((key) => key + 1);
      setFocusEmail(true);
      setState({ kind: 'idle' });
      return;
    }
    if (current.busy || Date.now() < current.resendAt) return;
    setState({ ...current, busy: true, error: null });
    const answer = await postSignup({ ...current.fields, confirmedEmail: current.email, action: 'resend' });
    setClock(Date.now());
    if (answer.kind === 'accepted')
      setState({ ...current, resent: true, resendAt: Date.now() + RESEND_AFTER_SEC * 1000, busy: false, error: null });
    else setState({ ...current, busy: false, error: answer.kind === 'refused' ? answer.message : UNKNOWN_ERROR });
  }

  if (state.kind === 'done') {
    const current = state;
    return (
      <div role="status">
        <SignupReceivedView
          headingLevel={2}
          headingRef={doneRef}
          email={current.email}
          values={signupFormValuesOf(textFields(current.fields))}
          resent={current.resent}
          resendInSec={Math.max(0, Math.ceil((current.resendAt - clock) / 1000))}
          busy={current.busy}
          formError={current.error}
          onSubmit={(event) => void again(event, current)}
        />
      </div>
    );
  }
  return (
    <SignupFormView
      key={formKey}
      formRef={formRef}
      values={values}
      errors={state.kind === 'invalid' || state.kind === 'sending' ? state.errors : {}}
      askAbout={askAbout}
      emailSuggestion={(state.kind === 'invalid' || state.kind === 'sending' ? state.suggestion : null) ?? hint}
      confirmedEmail={keptEmail}
      onUseSuggestion={useSuggestion}
      onKeepEmail={keepEmail}
      onBlur={left}
      timeZones={timeZones}
      defaultDigestHour={defaultDigestHour}
      formError={state.kind === 'refused' ? state.message : null}
      busy={state.kind === 'sending'}
      onSubmit={(event) => void submit(event)}
      onChange={changed}
      preview={preview}
      previewBusy={previewBusy}
      onPreview={previewNow}
    />
  );
}

type Answer =
  | { kind: 'accepted' }
  | { kind: 'invalid'; fields: SignupFieldErrors; emailSuggestion: string | null }
  | { kind: 'refused'; message: string };

async function postSignup(fields: Fields): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch('/api/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(fields),
    });
  } catch {
    return { kind: 'refused', message: NETWORK_ERROR };
  }
  const body = (await response.json().catch(() => null)) as { error?: string; fields?: SignupFieldErrors; emailSuggestion?: string } | null;
  if (response.status === 202) return { kind: 'accepted' };
  if (response.status === 400 && body?.fields)
    return { kind: 'invalid', fields: body.fields, emailSuggestion: body.emailSuggestion ?? null };
  return { kind: 'refused', message: body?.error ? sentence(body.error) : UNKNOWN_ERROR };
}

/** The address the signup went to: the one confirmed after a suggestion, else the one typed (trimmed, as the server reads it). */
const addressOf = (fields: Fields) => (text(fields.confirmedEmail) || text(fields.email)).trim();

const submitterOf = (event: SubmitEvent<HTMLFormElement>) => event.nativeEvent.submitter ?? undefined;

/** A field's value as text: the form's values are strings (FormData's files never occur here). */
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The form's fields as text, as a form post carries them (what signupFormValuesOf reads). */
const textFields = (fields: Fields): Record<string, string | string[]> =>
  Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, Array.isArray(value) ? value.map(text) : text(value)]));

const sentence = (message: string) => `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;

/**
 * The form as JSON: one value per field, and the weekday checkboxes as a list (FormData repeats
 * the name). None ticked is left out, as the form post without a script leaves it out: the
 * schema's default (every day), not an error about a field the cadence may not even use.
 */
function fieldsOf(form: HTMLFormElement, only?: readonly string[], submitter?: HTMLElement): Record<string, unknown> {
  const data = new FormData(form, submitter);
  const fields: Record<string, unknown> = {};
  for (const name of new Set(data.keys())) {
    if (only && !only.includes(name)) continue;
    fields[name] = name === 'weekdays' ? data.getAll(name) : data.get(name);
  }
  return fields;
}

/** The browser's own zone, while the select still shows the default; a zone the list lacks (another spelling) is added. */
function preselectBrowserZone(form: HTMLFormElement) {
  const select = form.querySelector<HTMLSelectElement>('select[data-browser-zone]');
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!select || !zone || select.value !== DEFAULT_TIMEZONE || zone === DEFAULT_TIMEZONE) return;
  if (![...select.options].some((option) => option.value === zone)) select.add(new Option(zone.replaceAll('_', ' '), zone), 1);
  select.value = zone;
}
