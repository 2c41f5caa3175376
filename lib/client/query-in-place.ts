import { queryErrorSpan } from '../query/query-error-span';
import { keywordQueryOf } from './keyword-query';

/**
 * The "Advanced: write a query" field as the form script keeps it (lib/subscriptions/query-field.tsx
 * renders it): rewritten to the lists' query as the keywords and excludes are typed, and told a
 * preview's parse error in place — the message under it, and the query quoted with what the error
 * is at in <mark> — in the elements the server renders for the same error, so a page
 * answered without a script looks the same. Built from text nodes: the query is never HTML.
 */

const queryFieldOf = (form: HTMLFormElement) => form.querySelector<HTMLTextAreaElement>('textarea[name="query"]');

const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

/** The simple form's two fields, whose edits rewrite the query. */
export const isListField = (name: string) => name === 'keywords' || name === 'excludes';

/** The keywords or excludes changed: the query says the lists now, and the note that it said more goes. */
export function followLists(form: HTMLFormElement) {
  const query = queryFieldOf(form);
  const keywords = form.querySelector<HTMLTextAreaElement | HTMLInputElement>('[name="keywords"]');
  const excludes = form.querySelector<HTMLTextAreaElement | HTMLInputElement>('[name="excludes"]');
  if (!query || !keywords) return;
  query.value = keywordQueryOf(keywords.value, excludes?.value ?? '');
  form.querySelector('[data-query-note]')?.remove();
  clearQueryError(form);
}

/** Whether the preview has anything to look for: a keyword, or a query written. */
export const somethingToMatch = (fields: Record<string, unknown>) =>
  [fields.keywords, fields.query].some((value) => typeof value === 'string' && value.trim() !== '');

function describe(query: HTMLTextAreaElement, invalid: boolean) {
  const ids = [`${query.id}-hint`, ...(invalid ? [`${query.id}-error`, `${query.id}-at`] : [])];
  query.setAttribute('aria-describedby', ids.filter((id) => document.getElementById(id)).join(' '));
  if (invalid) query.setAttribute('aria-invalid', 'true');
  else query.removeAttribute('aria-invalid');
}

/** A preview's answer that the query does not parse: where and why, under the field, which opens. */
export function showQueryError(form: HTMLFormElement, message: string, at: number) {
  const query = queryFieldOf(form);
  if (!query) return;
  const details = query.closest('details');
  if (details) details.open = true;
  const error = document.getElementById(`${query.id}-error`) ?? document.createElement('p');
  error.id = `${query.id}-error`;
  error.className = 'field-error';
  const hidden = document.createElement('span');
  hidden.className = 'visually-hidden';
  hidden.textContent = 'Error: ';
  error.replaceChildren(hidden, sentence(message));
  query.after(error);
  error.after(errorAt(`${query.id}-at`, query.value.trim(), at));
  describe(query, true);
}

/** The query quoted, what its error is at marked (queryErrorSpan): QueryErrorAt's markup. */
function errorAt(id: string, text: string, at: number): HTMLElement {
  const line = document.getElementById(id) ?? document.createElement('p');
  line.id = id;
  line.className = 'query-at';
  const hidden = document.createElement('span');
  hidden.className = 'visually-hidden';
  hidden.textContent = 'Here: ';
  const { before, marked, after } = queryErrorSpan(text, at);
  const mark = document.createElement('mark');
  mark.textContent = marked;
  const code = document.createElement('code');
  code.append(before, mark, after);
  line.replaceChildren(hidden, code);
  return line;
}

/** The query reads again (or is the lists'): its error and mark go. */
export function clearQueryError(form: HTMLFormElement) {
  const query = queryFieldOf(form);
  if (!query || !query.hasAttribute('aria-invalid')) return;
  document.getElementById(`${query.id}-error`)?.remove();
  document.getElementById(`${query.id}-at`)?.remove();
  describe(query, false);
}
