import { parseQuery } from '../query/parse-query';
import { simpleFormOf } from '../query/subscriber-query';
import { queryErrorSpan } from '../query/query-error-span';

/**
 * The "Advanced: write a query" field of the signup and preferences forms (docs/query.md "On the
 * pages"), one copy for both: under the keywords and excludes, closed while the query is exactly
 * what those lists say, open when it says more or has an error. The form script (lib/client) keeps
 * it in step with the lists as they are typed and shows a preview's parse error in place, in the
 * same elements this renders (`…-error`, `…-at`).
 */

/** The language in one line, and whole queries to copy: enough to start without reading the docs. */
const SYNTAX = ['"exact phrase"', 'OR', '-exclude', 'title:', 'remote:yes', 'salary>=100k'];
const EXAMPLES = ['title:(react OR vue) remote:yes -wordpress', '"data engineer" OR "analytics engineer"', 'rust rate>=60'];

/** Whether a query's text says more than the keyword lists can (fields, remote, pay, its own ANDs and ORs). */
export function isAdvancedQuery(text: string): boolean {
  if (text.trim() === '') return false;
  const parsed = parseQuery(text);
  return !parsed.ok || !simpleFormOf(parsed.tree).exact;
}

const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

/** The query with what its error is at marked (queryErrorSpan): the page says where, not only a number. */
export function QueryErrorAt({ id, text, at }: { id: string; text: string; at: number }) {
  const { before, marked, after } = queryErrorSpan(text, at);
  return (
    <p id={`${id}-at`} className="query-at">
      <span className="visually-hidden">Here: </span>
      <code>
        {before}
        <mark>{marked}</mark>
        {after}
      </code>
    </p>
  );
}

export function QueryField(input: { id: string; value: string; error: string | undefined; autoFocus?: boolean }) {
  const { id, value, error } = input;
  const parsed = error && value.trim() !== '' ? parseQuery(value.trim()) : null;
  const at = parsed && !parsed.ok ? parsed.error.at : null;
  const describedBy = [`${id}-hint`, error ? `${id}-error` : null, at !== null ? `${id}-at` : null].filter(Boolean).join(' ');
  return (
    <details className="field query-field" open={Boolean(error) || isAdvancedQuery(value) || undefined} data-query-field="">
      <summary>Advanced: write a query</summary>
      <label htmlFor={id}>Your query</label>
      <p id={`${id}-hint`} className="hint">
        Say exactly what you want, in one line:{' '}
        {SYNTAX.map((word, i) => (
          <span key={word}>
            {i > 0 ? ', ' : null}
            <code>{word}</code>
          </span>
        ))}
        . For example:{' '}
        {EXAMPLES.map((example, i) => (
          <span key={example}>
            {i > 0 ? ' · ' : null}
            <code>{example}</code>
          </span>
        ))}
        . Written here, it replaces the keywords and excludes above.
      </p>
      <textarea
        id={id}
        name="query"
        rows={3}
        spellCheck={false}
        autoComplete="off"
        defaultValue={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        autoFocus={input.autoFocus || undefined}
      />
      {error ? (
        <p id={`${id}-error`} className="field-error">
          <span className="visually-hidden">Error: </span>
          {sentence(error)}
        </p>
      ) : null}
      {at !== null ? <QueryErrorAt id={id} text={value.trim()} at={at} /> : null}
    </details>
  );
}

/** Beside the simple form when the query says more than it can: editing the lists writes a query of just their words. */
export function AdvancedQueryNote({ id, query }: { id: string; query: string }) {
  if (!isAdvancedQuery(query)) return null;
  return (
    <p id={id} className="hint query-note" data-query-note="">
      Your query below says more than keywords and excludes can. Editing them here replaces it with a query of just these words.
    </p>
  );
}
