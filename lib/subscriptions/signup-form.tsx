import type { SignupFormValues } from './signup-form-values';
import type { SignupField, SignupFieldErrors } from '../subscribers/signup-schema';
import { EMAIL_SUGGESTION_WORDS as WORDS } from './email-suggestion-words';
import { ABOUT_HINT, MAX_ABOUT_LENGTH } from '../subscribers/fit-profile';
import { PreviewPanel, type PreviewPanelState } from '../preview/preview-panel';
import { described, FieldError, id, Optional, sentence, WhatToMatchFields, type FieldsProps } from './signup-fields';
import { COMMON_CURRENCIES } from '../pay/minimum-pay';
import { MINIMUM_PAY_FIELDS, MINIMUM_PAY_WORDS } from '../pay/minimum-pay-words';
import {
  CADENCE_CHOICES,
  FOR_DAILY,
  FOR_DIGEST,
  FOR_WEEKLY,
  HourSelect,
  TimeZoneSelect,
  WeekdayChecks,
  WeeklyDaySelect,
} from './schedule-fields';

/**
 * The signup form's markup, the one copy of it: the landing page renders it, and POST /api/signup
 * and POST /api/preview render it again when a form post needs its errors, its typo question or
 * its preview shown; the form script (lib/client) swaps that answer in place of the form. It posts
 * to /api/signup either way (its Preview button to /api/preview), so it works without any script.
 */

export type EmailSuggestion = { typed: string; suggested: string; asked: true };

export type SignupFormViewProps = {
  /** The level of the preview panel's heading: 3 under the landing page's "Sign up" (an h2), 2 on a page whose form follows its h1. */
  previewHeadingLevel?: 2 | 3;
  values: SignupFormValues;
  errors: SignupFieldErrors;
  /** The AI stage is on: "About you" is on the form (nothing else reads it, so without the stage it is not). */
  askAbout: boolean;
  emailSuggestion?: EmailSuggestion | null;
  /** Takes focus when the page loads ("Not you? Change it" comes back with the address field focused). */
  focusField?: SignupField;
  /** The time zones the select offers (timeZoneChoices, computed on the server so both renders agree). */
  timeZones: readonly string[];
  /** DIGEST_HOUR_UTC: what "Default" means on the hour select. */
  defaultDigestHour: number;
  /** On a page rendered for a failed form post, the first field with an error takes focus. */
  autoFocusFirstError?: boolean;
  preview?: PreviewPanelState;
};

const ORDER: SignupField[] = [
  'email',
  'keywords',
  'excludes',
  'query',
  'minFixed',
  'minHourly',
  'minYearly',
  'minCurrency',
  'minBudget',
  'about',
  'mode',
  'timezone',
  'digestHour',
  'weekdays',
  'weeklyDay',
];

/** The select's currencies: the common ones, and one sent back that is not among them. */
const currencyChoices = (chosen: string): string[] =>
  (COMMON_CURRENCIES as readonly string[]).includes(chosen) || !chosen ? [...COMMON_CURRENCIES] : [...COMMON_CURRENCIES, chosen];
export function SignupFormView({
  values,
  errors,
  askAbout,
  emailSuggestion = null,
  focusField,
  timeZones,
  defaultDigestHour,
  autoFocusFirstError = false,
  preview = { kind: 'idle' },
  previewHeadingLevel = 3,
}: SignupFormViewProps) {
  const first = autoFocusFirstError ? ORDER.find((field) => errors[field]) : focusField;
  // An old form's minimum budget is the fixed minimum: that field takes its focus.
  const focus = (field: SignupField) => field === first || (field === 'minFixed' && first === 'minBudget');
  const fields = { values, errors, focus };
  return (
    // data-preview-form: the form script previews as they type and offers the typo question as the email field is left.
    <form className="signup-form" method="post" action="/api/signup" data-preview-form="">
      {errors.body ? (
        <p className="form-error" role="alert">
          {sentence(errors.body)}
        </p>
      ) : null}
      <EmailField {...fields} suggestion={emailSuggestion} />
      <WhatToMatchFields {...fields} />
      {/* Right under the two fields it follows most, so the preview stays beside the typing on a phone; on a wide screen the stylesheet moves it into a column of its own beside the whole form. */}
      <PreviewPanel id={id('preview')} state={preview} headingLevel={previewHeadingLevel} />
      <MinimumPayFieldset {...fields} />
      {askAbout ? <AboutField {...fields} /> : null}
      <CadenceFieldset {...fields} />
      <DigestScheduleFields {...fields} timeZones={timeZones} defaultDigestHour={defaultDigestHour} />
      <SignupButtons />
    </form>
  );
}

function EmailField({ values, errors, focus, suggestion }: FieldsProps & { suggestion: EmailSuggestion | null }) {
  return (
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
      {suggestion ? <EmailSuggestionBox suggestion={suggestion} /> : <FieldError field="email" errors={errors} />}
    </div>
  );
}

/** The least they accept per kind of pay, and the currency those minimums are in. */
function MinimumPayFieldset({ values, errors, focus }: FieldsProps) {
  // An old form's minimum budget: its error is the fixed minimum's, red border and all.
  const payErrors: SignupFieldErrors = { ...errors, minFixed: errors.minFixed ?? errors.minBudget };
  return (
    <fieldset className="field">
      <legend>
        <Optional>{MINIMUM_PAY_WORDS.legend}</Optional>
      </legend>
      <p id={`${id('minPay')}-hint`} className="hint">
        {MINIMUM_PAY_WORDS.hint}
      </p>
      {MINIMUM_PAY_FIELDS.map((field) => (
        <div key={field} className="field">
          <label htmlFor={id(field)}>{MINIMUM_PAY_WORDS.fields[field].label}</label>
          <p id={`${id(field)}-hint`} className="hint">
            {MINIMUM_PAY_WORDS.fields[field].hint}
          </p>
          <input
            id={id(field)}
            name={field}
            type="text"
            inputMode="decimal"
            autoComplete="off"
            placeholder={MINIMUM_PAY_WORDS.fields[field].example}
            defaultValue={values[field]}
            {...described(field, payErrors, { autoFocus: focus(field) })}
            aria-describedby={[`${id('minPay')}-hint`, `${id(field)}-hint`, payErrors[field] ? `${id(field)}-error` : null]
              .filter(Boolean)
              .join(' ')}
          />
          <FieldError field={field} errors={payErrors} />
        </div>
      ))}
      <div className="field">
        <label htmlFor={id('minCurrency')}>{MINIMUM_PAY_WORDS.currency.label}</label>
        <p id={`${id('minCurrency')}-hint`} className="hint">
          {MINIMUM_PAY_WORDS.currency.hint}
        </p>
        <select
          id={id('minCurrency')}
          name="minCurrency"
          defaultValue={values.minCurrency}
          {...described('minCurrency', errors, { hint: true, autoFocus: focus('minCurrency') })}
        >
          {currencyChoices(values.minCurrency).map((code) => (
            <option key={code} value={code}>
              {code}
            </option>
          ))}
        </select>
        <FieldError field="minCurrency" errors={errors} />
      </div>
    </fieldset>
  );
}

function AboutField({ values, errors, focus }: FieldsProps) {
  return (
    <div className="field">
      <label htmlFor={id('about')}>
        <Optional>About you</Optional>
      </label>
      <p id={`${id('about')}-hint`} className="hint">
        {ABOUT_HINT}
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
  );
}

/** How often: instant alerts, a daily digest or a weekly one. */
function CadenceFieldset({ values, errors, focus }: FieldsProps) {
  return (
    <fieldset className="field">
      <legend>How often</legend>
      <div className="choices">
        {CADENCE_CHOICES.map(({ mode, label, hint }, i) => (
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
  );
}

/** The digest's schedule: its time zone and hour, the days a daily one may come, the day of a weekly one (which show is CSS). */
function DigestScheduleFields({
  values,
  errors,
  focus,
  timeZones,
  defaultDigestHour,
}: FieldsProps & { timeZones: readonly string[]; defaultDigestHour: number }) {
  return (
    <>
      <div className={`field ${FOR_DIGEST}`}>
        <label htmlFor={id('timezone')}>Your time zone</label>
        <p id={`${id('timezone')}-hint`} className="hint">
          The digest hour and days are read in this zone.
        </p>
        <TimeZoneSelect
          id={id('timezone')}
          value={values.timezone}
          zones={timeZones}
          {...described('timezone', errors, { hint: true, autoFocus: focus('timezone') })}
        />
        <FieldError field="timezone" errors={errors} />
      </div>
      <div className={`field ${FOR_DIGEST}`}>
        <label htmlFor={id('digestHour')}>Digest hour (your time)</label>
        <HourSelect
          id={id('digestHour')}
          value={values.digestHour}
          defaultHour={defaultDigestHour}
          {...described('digestHour', errors, { autoFocus: focus('digestHour') })}
        />
        <FieldError field="digestHour" errors={errors} />
      </div>
      <fieldset className={`field ${FOR_DAILY}`}>
        <legend>Days a digest may come</legend>
        <WeekdayChecks
          idPrefix={id('weekdays')}
          checked={values.weekdays}
          {...described('weekdays', errors, { autoFocus: focus('weekdays') })}
        />
        <FieldError field="weekdays" errors={errors} />
      </fieldset>
      <div className={`field ${FOR_WEEKLY}`}>
        <label htmlFor={id('weeklyDay')}>Day of the weekly digest</label>
        <WeeklyDaySelect
          id={id('weeklyDay')}
          value={values.weeklyDay}
          {...described('weeklyDay', errors, { autoFocus: focus('weeklyDay') })}
        />
        <FieldError field="weeklyDay" errors={errors} />
      </div>
    </>
  );
}

function SignupButtons() {
  return (
    <>
      <div className="form-buttons">
        <button type="submit">Sign up</button>
        {/* After Sign up, so Enter in a field still signs up; formNoValidate: a preview needs no email. */}
        <button type="submit" className="secondary" formAction="/api/preview" formNoValidate>
          Preview
        </button>
      </div>
      <p className="fine">
        We email you a link to confirm; nothing is sent before you click it. No account, no password: every email has a link to change your
        preferences or unsubscribe.
      </p>
    </>
  );
}

/**
 * The server's question: it stands in for the field's error (the same id, so the field is
 * described by it), and each button signs up with its address.
 */
function EmailSuggestionBox({ suggestion: { typed, suggested } }: { suggestion: EmailSuggestion }) {
  return (
    <div id={`${id('email')}-error`} className="email-suggestion" role="alert">
      <p className="field-error">
        <span className="visually-hidden">Error: </span>
        {WORDS.question} <strong>{suggested}</strong>? {WORDS.notYet}
      </p>
      <div className="form-buttons">
        <button type="submit" name="confirmedEmail" value={suggested} formNoValidate>
          {WORDS.use(suggested)}
        </button>
        <button type="submit" name="confirmedEmail" value={typed} className="secondary" formNoValidate>
          {WORDS.useAnyway(typed)}
        </button>
      </div>
    </div>
  );
}
