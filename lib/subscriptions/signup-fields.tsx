import type { ReactNode } from 'react';
import type { SignupField, SignupFieldErrors } from '../subscribers/signup-schema';
import type { SignupFormValues } from './signup-form-values';
import { AdvancedQueryNote, QueryField } from './query-field';

/** The signup form's fields' ids, each error under its field, and what to match (signup-form.tsx puts them together). */
export const id = (field: string) => `signup-${field}`;

export const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

export function FieldError({ field, errors }: { field: SignupField; errors: SignupFieldErrors }) {
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
export function described(field: SignupField, errors: SignupFieldErrors, options: { hint?: boolean; autoFocus?: boolean }) {
  const ids = [options.hint ? `${id(field)}-hint` : null, errors[field] ? `${id(field)}-error` : null].filter(Boolean);
  return {
    'aria-invalid': errors[field] ? true : undefined,
    'aria-describedby': ids.length > 0 ? ids.join(' ') : undefined,
    autoFocus: options.autoFocus || undefined,
  };
}

export function Optional({ children }: { children: ReactNode }) {
  return (
    <>
      {children} <span className="optional">(optional)</span>
    </>
  );
}

/** What every field of the form needs: the values to show, the errors, and whether it takes focus. */
export type FieldsProps = { values: SignupFormValues; errors: SignupFieldErrors; focus: (field: SignupField) => boolean };

/**
 * What to match: the keywords a posting must mention and the excludes it must not (the simple
 * form), and below them the query they are, to write by hand.
 */
export function WhatToMatchFields({ values, errors, focus }: FieldsProps) {
  return (
    <>
      <div className="field">
        <label htmlFor={id('keywords')}>Keywords</label>
        <p id={`${id('keywords')}-hint`} className="hint">
          Commas or new lines between them; phrases are fine. For example: react, next.js, firestore.
        </p>
        <textarea
          id={id('keywords')}
          name="keywords"
          rows={2}
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
      <AdvancedQueryNote id={`${id('query')}-note`} query={values.query} />
      <QueryField id={id('query')} value={values.query} error={errors.query} autoFocus={focus('query')} />
    </>
  );
}
