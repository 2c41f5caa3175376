import type { ReactNode } from 'react';
import { Page, pageResponse } from '../http/page';
import { PreviewPanel, type PreviewPanelState } from '../preview/preview-panel';
import { ErrorLine, SCHEDULE_LABELS, SCHEDULE_TARGETS, ScheduleFields } from './preferences-schedule';
import { ABOUT_HINT } from '../subscribers/fit-profile';
import {
  MAX_ABOUT_LENGTH,
  MAX_EXCLUDES,
  MAX_KEYWORDS,
  MAX_KEYWORD_LENGTH,
  type PreferenceField,
  type PreferenceFieldErrors,
} from '../subscribers/preferences-schema';
import type { Subscriber } from '../subscribers/subscriber';
import { queryTextOf } from '../query/subscriber-query';
import { AdvancedQueryNote, QueryField } from './query-field';
import { COMMON_CURRENCIES, minPayFormValues } from '../pay/minimum-pay';
import { MINIMUM_PAY_FIELDS, MINIMUM_PAY_WORDS } from '../pay/minimum-pay-words';
import { ArchiveLinksSection, type ArchiveLinks } from '../archive/archive-links';
import { ChannelsSection, type ChannelsSectionProps } from './preferences-channels';

/**
 * The form of /preferences: prefilled, or as the subscriber sent it with each error next to its
 * field (preferences-status-pages.tsx has every page answered instead of it). Plain HTML that works without script;
 * React escapes every value.
 */

/** The form's fields as text, exactly as they are shown (and as a browser posts them back). */
export type PreferenceFormValues = Record<PreferenceField, string>;

export function formValuesOf(
  subscriber: Pick<
    Subscriber,
    'keywords' | 'excludes' | 'query' | 'minPay' | 'mode' | 'about' | 'fitThreshold' | 'timezone' | 'digestHour' | 'weekdays' | 'weeklyDay'
  >,
): PreferenceFormValues {
  return {
    keywords: subscriber.keywords.join(', '),
    excludes: subscriber.excludes.join(', '),
    query: queryTextOf(subscriber),
    ...minPayFormValues(subscriber.minPay),
    // The old single field is not on the page: the fixed minimum shows what it meant.
    minBudget: '',
    about: subscriber.about,
    fitThreshold: String(subscriber.fitThreshold),
    mode: subscriber.mode,
    timezone: subscriber.timezone,
    digestHour: subscriber.digestHour === null ? '' : String(subscriber.digestHour),
    weekdays: subscriber.weekdays.join(','),
    weeklyDay: subscriber.weeklyDay,
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
  /** What they get now, in words (describeCadence of the stored subscriber). */
  cadence: string;
  /** The preview panel's content: filled after the Preview button without a script; the script fills it as they type. */
  preview?: PreviewPanelState;
  /** A preview refused by the rate limit: sent as Retry-After. */
  retryAfterSec?: number;
  unsubscribeLink: string;
  digestHourUtc: number;
  /** The AI verdict stage is configured: about and the fit threshold are shown (both are stored either way; nothing else reads them). */
  aiEnabled: boolean;
  /** One exclude proposed from their "not a fit" feedback: N (`removed`) of their last M (`of`) matches it would have removed. */
  excludeSuggestion?: { term: string; removed: number; of: number } | null;
  /** The archive link and the private feed URL, with the button that revokes it (lib/archive/archive-links.tsx). */
  archiveLinks?: ArchiveLinks | null;
  /** "Also send to…": the subscriber's channels beyond email (./preferences-channels.tsx). */
  channels?: ChannelsSectionProps | null;
};

const LABELS: Record<PreferenceField, string> = {
  keywords: 'Keywords',
  excludes: 'Exclude postings that mention',
  query: 'Advanced: write a query',
  minFixed: MINIMUM_PAY_WORDS.fields.minFixed.label,
  minHourly: MINIMUM_PAY_WORDS.fields.minHourly.label,
  minYearly: MINIMUM_PAY_WORDS.fields.minYearly.label,
  minCurrency: MINIMUM_PAY_WORDS.currency.label,
  minBudget: 'Minimum budget (USD)',
  about: 'About you',
  fitThreshold: 'Fit threshold (0–100)',
  ...SCHEDULE_LABELS,
};

/** Where the error summary's link for each field lands. */
const TARGETS: Record<PreferenceField, string> = {
  keywords: 'keywords',
  excludes: 'excludes',
  query: 'query',
  minFixed: 'minFixed',
  minHourly: 'minHourly',
  minYearly: 'minYearly',
  minCurrency: 'minCurrency',
  minBudget: 'minFixed',
  about: 'about',
  fitThreshold: 'fitThreshold',
  ...SCHEDULE_TARGETS,
};

const STATUS_TEXT: Record<'active' | 'paused', ReactNode> = {
  active: (
    <>
      <strong>Active</strong> — Scout emails you postings that match.
    </>
  ),
  paused: (
    <>
      <strong>Paused</strong> — Scout sends you nothing until you resume.
    </>
  ),
};

/** The form, prefilled with `values`; with `errors`, each message sits next to its field and the summary links to it. */
export function PreferencesFormView(page: Omit<PreferencesFormPage, 'status'>) {
  const errors = page.errors ?? {};
  const fieldsInError = (Object.keys(LABELS) as PreferenceField[]).filter((field) => errors[field]);
  const action = `?token=${encodeURIComponent(page.token)}`;

  return (
    <Page title={fieldsInError.length > 0 ? 'Error: Your preferences' : 'Your preferences'} formScript>
      <h1>Your Scout preferences</h1>
      <WhatTheyGet maskedEmail={page.maskedEmail} subscriberStatus={page.subscriberStatus} cadence={page.cadence} />
      {page.notice ? (
        <div className="notice" role="status">
          <p>{page.notice}</p>
        </div>
      ) : null}
      {fieldsInError.length > 0 ? <ErrorSummary fieldsInError={fieldsInError} errors={errors} /> : null}
      {page.excludeSuggestion ? <ExcludeSuggestionForm action={action} {...page.excludeSuggestion} /> : null}
      <form method="post" action={action} className="preferences" data-preview-form="">
        <input type="hidden" name="action" value="save" />
        <WhatToMatchFields values={page.values} errors={errors} />
        <MinimumPayFieldset values={page.values} errors={errors} />
        {/* Only the AI stage reads these two: while it is off they would be fields that do nothing (the post leaves them out, so the stored ones are kept). */}
        {page.aiEnabled ? <FitFields values={page.values} errors={errors} /> : null}
        <ScheduleFields values={page.values} errors={errors} defaultDigestHour={page.digestHourUtc} />
        <PreviewPanel id="preview" state={page.preview ?? { kind: 'idle' }} headingLevel={2} />
        <div className="form-buttons">
          <button type="submit">Save preferences</button>
          {/* A button of its own name, sent only when it is pressed: the handler previews instead of saving (after Save, so Enter saves). */}
          <button type="submit" name="preview" value="1" className="secondary" formNoValidate>
            Preview
          </button>
        </div>
      </form>
      <PauseOrResumeForm action={action} subscriberStatus={page.subscriberStatus} />
      {page.channels ? <ChannelsSection action={action} {...page.channels} /> : null}
      {page.archiveLinks ? <ArchiveLinksSection action={action} {...page.archiveLinks} /> : null}
      <p className="fine">
        <a href={page.unsubscribeLink}>Unsubscribe from Scout</a>
      </p>
    </Page>
  );
}

type FieldsProps = { values: PreferenceFormValues; errors: PreferenceFieldErrors };

/** Whose settings these are, whether Scout is sending, and what it sends now. */
function WhatTheyGet(input: Pick<PreferencesFormPage, 'maskedEmail' | 'subscriberStatus' | 'cadence'>) {
  return (
    <>
      <p>
        Settings
        {input.maskedEmail ? (
          <>
            {' for '}
            <strong>{input.maskedEmail}</strong>
          </>
        ) : null}
        . Status: {STATUS_TEXT[input.subscriberStatus]}
      </p>
      <p className="current-cadence">Scout sends you {input.cadence}.</p>
    </>
  );
}

/** Nothing was saved: each field in error, linked to where it is fixed. */
function ErrorSummary({ fieldsInError, errors }: { fieldsInError: PreferenceField[]; errors: PreferenceFieldErrors }) {
  return (
    <div className="error-summary" role="alert" aria-labelledby="error-summary-title" tabIndex={-1}>
      <h2 id="error-summary-title">
        Nothing was saved: {fieldsInError.length === 1 ? 'one field needs' : `${fieldsInError.length} fields need`} fixing
      </h2>
      <ul>
        {fieldsInError.map((field) => (
          <li key={field}>
            <a href={`#${TARGETS[field]}`}>
              {LABELS[field]}: {errors[field]}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** What to match: the keywords a posting must mention, the excludes it must not, and the query they are (to write by hand). */
function WhatToMatchFields({ values, errors }: FieldsProps) {
  return (
    <>
      <TextField
        field="keywords"
        value={values.keywords}
        error={errors.keywords}
        hint={`Postings that mention any of these. Separate them with commas or new lines; up to ${MAX_KEYWORDS}, each up to ${MAX_KEYWORD_LENGTH} characters.`}
        multiline
      />
      <TextField
        field="excludes"
        value={values.excludes}
        error={errors.excludes}
        hint={`Optional. Scout skips postings that mention any of these; up to ${MAX_EXCLUDES}.`}
        multiline
      />
      <AdvancedQueryNote id="query-note" query={values.query} />
      <QueryField id="query" value={values.query} error={errors.query} />
    </>
  );
}

/** The least they accept per kind of pay (an old form's minimum budget shows on the fixed one), and its currency. */
function MinimumPayFieldset({ values, errors }: FieldsProps) {
  return (
    <fieldset className="field">
      <legend>{MINIMUM_PAY_WORDS.legend}</legend>
      <p className="hint" id="minPay-hint">
        Optional. {MINIMUM_PAY_WORDS.hint}
      </p>
      {MINIMUM_PAY_FIELDS.map((field) => (
        <TextField
          key={field}
          field={field}
          value={values[field]}
          error={field === 'minFixed' ? (errors.minFixed ?? errors.minBudget) : errors[field]}
          hint={MINIMUM_PAY_WORDS.fields[field].hint}
          placeholder={MINIMUM_PAY_WORDS.fields[field].example}
          inputMode="decimal"
        />
      ))}
      <CurrencyField value={values.minCurrency} error={errors.minCurrency} />
    </fieldset>
  );
}

/** What the AI verdict stage reads: who they are, and how well a posting must fit them. */
function FitFields({ values, errors }: FieldsProps) {
  return (
    <>
      <TextField
        field="about"
        value={values.about}
        error={errors.about}
        hint={`Optional. ${ABOUT_HINT}`}
        multiline
        maxLength={MAX_ABOUT_LENGTH}
      />
      <TextField
        field="fitThreshold"
        value={values.fitThreshold}
        error={errors.fitThreshold}
        hint="Scout asks a model how well each matching posting fits you, from 0 to 100, and sends only those at or above this number."
        inputMode="numeric"
        required
      />
    </>
  );
}

/** Pause while active, resume while paused: a form of its own, posting back to the same link. */
function PauseOrResumeForm({ action, subscriberStatus }: { action: string; subscriberStatus: 'active' | 'paused' }) {
  return subscriberStatus === 'active' ? (
    <form method="post" action={action} className="status-form">
      <input type="hidden" name="action" value="pause" />
      <p>Going away? Pause, and Scout sends nothing until you come back. Postings waiting for your next digest are dropped.</p>
      <button type="submit" className="secondary">
        Pause emails
      </button>
    </form>
  ) : (
    <form method="post" action={action} className="status-form">
      <input type="hidden" name="action" value="resume" />
      <p>Resume, and Scout emails you new matching postings again.</p>
      <button type="submit">Resume emails</button>
    </form>
  );
}

/** The suggestion and its one button: a form of its own, posting back to the same link like the others. */
function ExcludeSuggestionForm(input: { action: string; term: string; removed: number; of: number }) {
  return (
    <form method="post" action={input.action} className="suggestion-form">
      <input type="hidden" name="action" value="exclude" />
      <input type="hidden" name="term" value={input.term} />
      <p>
        <strong>
          Exclude &apos;{input.term}&apos;? It would have removed {input.removed} of your last {input.of} matches.
        </strong>
      </p>
      <p className="hint">Postings you marked “not a fit” have it in common. Nothing changes until you press the button.</p>
      <button type="submit" className="secondary">
        Exclude &apos;{input.term}&apos;
      </button>
    </form>
  );
}

export const preferencesFormPage = ({ status, retryAfterSec, ...page }: PreferencesFormPage): Promise<Response> =>
  pageResponse(<PreferencesFormView {...page} />, {
    status,
    headers: retryAfterSec ? { 'retry-after': String(retryAfterSec) } : {},
  });

function TextField(input: {
  field: PreferenceField;
  value: string;
  error: string | undefined;
  hint: string;
  multiline?: boolean;
  required?: boolean;
  inputMode?: 'decimal' | 'numeric' | 'text';
  maxLength?: number;
  placeholder?: string;
}) {
  const { field } = input;
  const control = {
    id: field,
    name: field,
    'aria-describedby': input.error ? `${field}-hint ${field}-error` : `${field}-hint`,
    'aria-invalid': input.error ? true : undefined,
    required: input.required || undefined,
    maxLength: input.maxLength,
    placeholder: input.placeholder,
    defaultValue: input.value,
  };
  return (
    <div className="field">
      <label htmlFor={field}>{LABELS[field]}</label>
      <p className="hint" id={`${field}-hint`}>
        {input.hint}
      </p>
      <ErrorLine field={field} error={input.error} />
      {input.multiline ? (
        <textarea rows={3} {...control} />
      ) : (
        <input type="text" inputMode={input.inputMode ?? 'text'} autoComplete="off" {...control} />
      )}
    </div>
  );
}

/** The currency of the minimums typed without a sign of their own; pay in another currency is kept and said to be not compared. */
function CurrencyField({ value, error }: { value: string; error: string | undefined }) {
  const choices = (COMMON_CURRENCIES as readonly string[]).includes(value) ? [...COMMON_CURRENCIES] : [...COMMON_CURRENCIES, value];
  return (
    <div className="field">
      <label htmlFor="minCurrency">{LABELS.minCurrency}</label>
      <p className="hint" id="minCurrency-hint">
        {MINIMUM_PAY_WORDS.currency.hint}
      </p>
      <ErrorLine field="minCurrency" error={error} />
      <select
        id="minCurrency"
        name="minCurrency"
        defaultValue={value}
        aria-describedby={error ? 'minCurrency-hint minCurrency-error' : 'minCurrency-hint'}
        aria-invalid={error ? true : undefined}
      >
        {choices.map((code) => (
          <option key={code} value={code}>
            {code}
          </option>
        ))}
      </select>
    </div>
  );
}
