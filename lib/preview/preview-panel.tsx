import { describeEstimate } from './describe-estimate';
import { PREVIEW_MAX_POSTINGS, PREVIEW_WINDOW_DAYS, type Preview } from './preview';
import type { PreviewField, PreviewFieldErrors } from './preview-input';
import { PREVIEW_IDLE, PREVIEW_UNAVAILABLE } from './preview-words';
import { markedParts } from './marked-words';

/**
 * The preview panel of the signup and preferences forms. One component for every way it is shown:
 * rendered on the server into the page a Preview button (no JavaScript) answers with, and to the
 * `html` of POST /api/preview's JSON, which the form script (lib/client) puts in the live region.
 * React escapes every posting's text; nothing here sets raw HTML.
 */
export type PreviewPanelState =
  | { kind: 'idle' }
  | { kind: 'shown'; preview: Preview }
  /** The fields as typed cannot be previewed: the first field at fault and its message. */
  | { kind: 'invalid'; message: string }
  | { kind: 'rate-limited'; retryAfterSec: number }
  /** Every instance's reads of the week are used up for the minute (shared-window.ts): no one's fault here. */
  | { kind: 'busy'; retryAfterSec: number }
  | { kind: 'unavailable' };

const FIELD_NAMES: Record<PreviewField | 'body', string> = {
  keywords: 'Keywords',
  excludes: 'Excludes',
  query: 'Query',
  minFixed: 'Minimum fixed price',
  minHourly: 'Minimum hourly rate',
  minYearly: 'Minimum yearly salary',
  minCurrency: 'Currency of your minimums',
  minBudget: 'Minimum budget',
  mode: 'How often',
  timezone: 'Time zone',
  digestHour: 'Digest hour',
  weekdays: 'Days a digest may come',
  weeklyDay: 'Day of the weekly digest',
  body: 'The form',
};

/** The panel's line for a preview the fields as typed cannot make: the first field at fault, in the forms' order. */
export function invalidPreview(errors: PreviewFieldErrors): PreviewPanelState {
  const field = (Object.keys(FIELD_NAMES) as (PreviewField | 'body')[]).find((f) => errors[f]) ?? 'body';
  return { kind: 'invalid', message: `${FIELD_NAMES[field]}: ${errors[field] ?? 'cannot be previewed'}` };
}

export const PREVIEW_RATE_LIMITED = (retryAfterSec: number) =>
  `Too many previews from your network in the last minute. Try again in ${retryAfterSec} second${retryAfterSec === 1 ? '' : 's'}.`;

export const PREVIEW_BUSY = (retryAfterSec: number) =>
  `Previews are busy for everyone right now. Try again in ${retryAfterSec} second${retryAfterSec === 1 ? '' : 's'}; your form still works.`;

/**
 * The panel: a heading and the live region whose content (PreviewBody) changes. The region is
 * always in the page, so a screen reader announces each new preview (`aria-live="polite"`).
 */
export function PreviewPanel(input: { id: string; state: PreviewPanelState; headingLevel?: 2 | 3 }) {
  const Heading = input.headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section className="preview" aria-labelledby={`${input.id}-title`}>
      <Heading id={`${input.id}-title`}>What the last {PREVIEW_WINDOW_DAYS} days would have brought</Heading>
      <div id={input.id} className="preview-body" aria-live="polite" data-preview-region="">
        <PreviewBody state={input.state} />
      </div>
    </section>
  );
}

export function PreviewBody({ state }: { state: PreviewPanelState }) {
  switch (state.kind) {
    case 'idle':
      return <p className="hint">{PREVIEW_IDLE}</p>;
    case 'invalid':
      return <p className="hint">No preview yet. {state.message}.</p>;
    case 'rate-limited':
      return <p className="field-error">{PREVIEW_RATE_LIMITED(state.retryAfterSec)}</p>;
    case 'busy':
      return <p className="field-error">{PREVIEW_BUSY(state.retryAfterSec)}</p>;
    case 'unavailable':
      return <p className="field-error">{PREVIEW_UNAVAILABLE}</p>;
    case 'shown':
      return <PreviewResult preview={state.preview} />;
  }
}

function PreviewResult({ preview }: { preview: Preview }) {
  const { matched, top } = preview;
  return (
    <>
      <p className="preview-count">
        <strong>
          {preview.truncated ? 'At least ' : ''}
          {matched.toLocaleString('en-US')} {matched === 1 ? 'posting' : 'postings'}
        </strong>{' '}
        of the last {preview.windowDays} days would have matched
        {preview.truncated ? ` (only the newest ${PREVIEW_MAX_POSTINGS.toLocaleString('en-US')} were checked)` : ''}.
      </p>
      <p className="preview-estimate">{describeEstimate(preview.estimate, preview.windowDays)}</p>
      {top.length > 0 ? (
        <>
          <p className="hint">{top.length === 1 ? 'The match:' : `The best ${top.length}:`}</p>
          <ol className="preview-list">
            {top.map((posting) => (
              <li key={posting.id}>
                {posting.url ? (
                  <a href={posting.url} rel="noopener noreferrer nofollow" target="_blank">
                    <Marked text={posting.title} words={posting.marks.title} />
                  </a>
                ) : (
                  <span>
                    <Marked text={posting.title} words={posting.marks.title} />
                  </span>
                )}
                <span className="preview-meta">{[posting.source, posting.employer, posting.budget].filter(Boolean).join(' · ')}</span>
                {posting.excerpt ? (
                  <span className="preview-excerpt">
                    <Marked text={posting.excerpt} words={posting.marks.text} />
                  </span>
                ) : null}
                {/* Why it matched, in the words an email uses: the score behind the order is no number a reader can weigh. */}
                {posting.reasons.length > 0 ? <span className="preview-why">Why: {posting.reasons.join('; ')}</span> : null}
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </>
  );
}

/** A posting's text with the words its query matched in <mark>: text nodes and elements only, every word escaped by React. */
function Marked({ text, words }: { text: string; words: readonly string[] }) {
  return <>{markedParts(text, words).map((part, i) => (part.marked ? <mark key={i}>{part.text}</mark> : part.text))}</>;
}
