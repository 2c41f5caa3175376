import type { FormEventHandler, ReactNode, Ref } from 'react';
import type { SignupField, SignupFieldErrors } from '../subscribers/signup-schema';
import { MAX_ABOUT_LENGTH } from '../subscribers/fit-profile';

/**
 * The signup form's markup, the one copy of it: the landing page renders it (through the client
 * component that enhances it), and POST /api/signup renders it again, on the server, when a form
 * post without JavaScript needs its errors shown. It posts to /api/signup either way, so it works
 * before any script has loaded. No hooks here: it renders the same on the server and in the browser.
 */

/**
 * The form's values as typed: lists stay text, so a page shown again shows exactly what was sent;
 * mode is '' when the post chose none, so the page shown with that error checks nothing either.
 */
export type SignupFormValues = {
  email: string;
  keywords: string;
  excludes: string;
  minBudget: string;
  about: string;
  mode: 'instant' | 'daily' | '';
};

export const emptySignupValues: SignupFormValues = { email: '', keywords: '', excludes: '', minBudget: '', about: '', mode: 'instant' };

export type SignupFormViewProps = {
  values: SignupFormValues;
  errors: SignupFieldErrors;
  /** A problem with the submission as a whole (not valid JSON, the network, rate limits). */
  formError?: string | null;
  busy?: boolean;
  /** On a page rendered for a failed form post, the first field with an error takes focus. */
  autoFocusFirstError?: boolean;
  onSubmit?: FormEventHandler<HTMLFormElement>;
  formRef?: Ref<HTMLFormElement>;
};

const ORDER: SignupField[] = ['email', 'keywords', 'excludes', 'minBudget', 'about', 'mode'];
const id = (field: string) => `signup-${field}`;
const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

function FieldError({ field, errors }: { field: SignupField; errors: SignupFieldErrors }) {
  const message = errors[field];
  if (!message) return null;
  return (
    <p id={`${id(field)}-error`} className="field-error">
      <span className="visually-hidden">Error: </span>
      {sentence(message)}
    </p>
  );
}

/** aria-invalid and aria-describedby for a control: its hint, then its error when it has one. */
function described(field: SignupField, errors: SignupFieldErrors, options: { hint?: boolean; autoFocus?: boolean }) {
  const ids = [options.hint ? `${id(field)}-hint` : null, errors[field] ? `${id(field)}-error` : null].filter(Boolean);
  return {
    'aria-invalid': errors[field] ? true : undefined,
    'aria-describedby': ids.length > 0 ? ids.join(' ') : undefined,
    autoFocus: options.autoFocus || undefined,
  };
}

function Optional({ children }: { children: ReactNode }) {
  return (
    <>
      {children} <span className="optional">(optional)</span>
    </>
  );
}

export function SignupFormView({
  values,
  errors,
  formError,
  busy = false,
  autoFocusFirstError = false,
  onSubmit,
  formRef,
}: SignupFormViewProps) {
  const first = autoFocusFirstError ? ORDER.find((field) => errors[field]) : undefined;
  const focus = (field: SignupField) => field === first;
  return (
    <form ref={formRef} className="signup-form" method="post" action="/api/signup" onSubmit={onSubmit} aria-busy={busy || undefined}>
      {formError || errors.body ? (
        <p className="form-error" role="alert">
          {sentence(formError ?? errors.body ?? '')}
        </p>
      ) : null}

      <div className="field">
        <label htmlFor={id('email')}>Email</label>
        <input
          id={id('email')}
          name="email"
          type="email"
          autoComplete="email"
          spellCheck={false}
          required
          maxLength={254}
          defaultValue={values.email}
          {...described('email', errors, { autoFocus: focus('email') })}
        />
        <FieldError field="email" errors={errors} />
      </div>

      <div className="field">
        <label htmlFor={id('keywords')}>Keywords</label>
        <p id={`${id('keywords')}-hint`} className="hint">
          Commas or new lines between them; phrases are fine. For example: react, next.js, firestore.
        </p>
        <textarea
          id={id('keywords')}
          name="keywords"
          rows={2}
          required
          defaultValue={values.keywords}
          {...described('keywords', errors, { hint: true, autoFocus: focus('keywords') })}
        />
        <FieldError field="keywords" errors={errors} />
      </div>

      <div className="field">
        <label htmlFor={id('excludes')}>
          <Optional>Excludes</Optional>
        </label>
        <p id={`${id('excludes')}-hint`} className="hint">
          Postings that mention any of these are skipped. For example: wordpress, unpaid.
        </p>
        <textarea
          id={id('excludes')}
          name="excludes"
          rows={2}
          defaultValue={values.excludes}
          {...described('excludes', errors, { hint: true, autoFocus: focus('excludes') })}
        />
        <FieldError field="excludes" errors={errors} />
      </div>

      <div className="field">
        <label htmlFor={id('minBudget')}>
          <Optional>Minimum budget</Optional>
        </label>
        <p id={`${id('minBudget')}-hint`} className="hint">
          Postings that state a lower budget are skipped; postings that state none still reach you.
        </p>
        <input
          id={id('minBudget')}
          name="minBudget"
          type="text"
          inputMode="numeric"
          autoComplete="off"
          defaultValue={values.minBudget}
          {...described('minBudget', errors, { hint: true, autoFocus: focus('minBudget') })}
        />
        <FieldError field="minBudget" errors={errors} />
      </div>

      <div className="field">
        <label htmlFor={id('about')}>
          <Optional>About you</Optional>
        </label>
        <p id={`${id('about')}-hint`} className="hint">
          In a few sentences, what you are looking for and what you are not; up to {MAX_ABOUT_LENGTH} characters.
        </p>
        <textarea
          id={id('about')}
          name="about"
          rows={3}
          maxLength={MAX_ABOUT_LENGTH}
          defaultValue={values.about}
          {...described('about', errors, { hint: true, autoFocus: focus('about') })}
        />
        <FieldError field="about" errors={errors} />
      </div>

      <fieldset className="field">
        <legend>How often</legend>
        <div className="choices">
          {(
            [
              ['instant', 'Instantly', 'an email as soon as a posting fits'],
              ['daily', 'Once a day', 'one digest of the best matches at 08:00 UTC'],
            ] as const
          ).map(([mode, label, hint], i) => (
            <div key={mode} className="choice">
              <input
                id={id(`mode-${mode}`)}
                type="radio"
                name="mode"
                value={mode}
                defaultChecked={values.mode === mode}
                {...described('mode', errors, { autoFocus: focus('mode') && i === 0 })}
              />
              <label htmlFor={id(`mode-${mode}`)}>
                {label} <span className="hint">{hint}</span>
              </label>
            </div>
          ))}
        </div>
        <FieldError field="mode" errors={errors} />
      </fieldset>

      <button type="submit" disabled={busy}>
        {busy ? 'Signing up…' : 'Sign up'}
      </button>
      <p className="fine">
        We email you a link to confirm; nothing is sent before you click it. No account, no password: every email has a link to change your
        preferences or unsubscribe.
      </p>
    </form>
  );
}
