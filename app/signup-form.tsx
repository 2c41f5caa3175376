'use client';

import { useEffect, useRef, useState, type FormEvent } from 'react';
import { emptySignupValues, SignupFormView } from '../lib/subscriptions/signup-form';
import type { SignupFieldErrors } from '../lib/subscribers/signup-schema';

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
 */
export function SignupForm() {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const formRef = useRef<HTMLFormElement>(null);
  const doneRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (state.kind === 'invalid') formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
    if (state.kind === 'done') doneRef.current?.focus();
  }, [state]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (state.kind === 'sending') return;
    const fields = Object.fromEntries(new FormData(event.currentTarget));
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
      formError={state.kind === 'refused' ? state.message : null}
      busy={state.kind === 'sending'}
      onSubmit={submit}
    />
  );
}

const sentence = (message: string) => `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
