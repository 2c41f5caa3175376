'use client';

import { useEffect, useRef, useState, type ChangeEvent, type MouseEvent, type SubmitEvent } from 'react';
import { emptySignupValues, SignupFormView } from '../lib/subscriptions/signup-form';
import type { SignupFieldErrors } from '../lib/subscribers/signup-schema';
import { PREVIEW_DEBOUNCE_MS, PREVIEW_FIELDS, type Preview } from '../lib/preview/preview';
import { invalidPreview, type PreviewPanelState } from '../lib/preview/preview-panel';
import type { PreviewFieldErrors } from '../lib/preview/preview-input';
import { DEFAULT_TIMEZONE } from '../lib/subscribers/digest-schedule';

type State =
  | { kind: 'idle' }
  | { kind: 'sending'; errors: SignupFieldErrors }
  | { kind: 'invalid'; errors: SignupFieldErrors }
  | { kind: 'refused'; message: string }
  | { kind: 'done'; message: string };

const NETWORK_ERROR = 'Scout could not be reached. Check your connection and try again.';
const UNKNOWN_ERROR = 'Something went wrong on our side. Please try again in a minute.';

/**
 * The signup form, better with JavaScript: the same markup the server renders (it posts to
 * /api/signup on its own before this script loads), submitted with fetch as JSON so errors appear
 * next to their fields and the answer in place, without a reload. Values stay as typed.
 *
 * The preview panel follows the typing: PREVIEW_DEBOUNCE_MS after the last change to a field a
 * preview reads, one POST /api/preview (an older one still in flight is aborted, so a late answer
 * never replaces a newer one); the Preview button asks at once instead of loading a page. The time
 * zone starts as the browser's own while the select still shows the default.
 */
export function SignupForm({ timeZones, defaultDigestHour }: { timeZones: readonly string[]; defaultDigestHour: number }) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [preview, setPreview] = useState<PreviewPanelState>({ kind: 'idle' });
  const [previewBusy, setPreviewBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const doneRef = useRef<HTMLDivElement>(null);
  const debounce = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const inFlight = useRef<AbortController | null>(null);

  useEffect(() => {
    if (state.kind === 'invalid') formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
    if (state.kind === 'done') doneRef.current?.focus();
    if (state.kind === 'idle' && formRef.current) preselectBrowserZone(formRef.current);
  }, [state]);

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
    if (!(PREVIEW_FIELDS as readonly string[]).includes(name)) return;
    clearTimeout(debounce.current);
    debounce.current = setTimeout(() => void showPreview(), PREVIEW_DEBOUNCE_MS);
  }

  function previewNow(event: MouseEvent<HTMLButtonElement>) {
    event.preventDefault();
    void showPreview();
  }

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (state.kind === 'sending') return;
    const fields = fieldsOf(event.currentTarget);
    setState({ kind: 'sending', errors: state.kind === 'invalid' ? state.errors : {} });
    let response: Response;
    try {
      response = await fetch('/api/signup', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(fields),
      });
    } catch {
      setState({ kind: 'refused', message: NETWORK_ERROR });
      return;
    }
    const body = (await response.json().catch(() => null)) as { message?: string; error?: string; fields?: SignupFieldErrors } | null;
    if (response.status === 202) setState({ kind: 'done', message: body?.message ?? 'Check your inbox.' });
    else if (response.status === 400 && body?.fields) setState({ kind: 'invalid', errors: body.fields });
    else setState({ kind: 'refused', message: body?.error ? sentence(body.error) : UNKNOWN_ERROR });
  }

  if (state.kind === 'done') {
    return (
      <div ref={doneRef} className="signup-done" role="status" tabIndex={-1}>
        <h2>Check your inbox</h2>
        <p>{state.message}</p>
        <button type="button" className="link-button" onClick={() => setState({ kind: 'idle' })}>
          Sign up another address
        </button>
      </div>
    );
  }
  return (
    <SignupFormView
      formRef={formRef}
      values={emptySignupValues}
      errors={state.kind === 'invalid' || state.kind === 'sending' ? state.errors : {}}
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

const sentence = (message: string) => `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;

/**
 * The form as JSON: one value per field, and the weekday checkboxes as a list (FormData repeats
 * the name). None ticked is left out, as the form post without a script leaves it out: the
 * schema's default (every day), not an error about a field the cadence may not even use.
 */
function fieldsOf(form: HTMLFormElement, only?: readonly string[]): Record<string, unknown> {
  const data = new FormData(form);
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
