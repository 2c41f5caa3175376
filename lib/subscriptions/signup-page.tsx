import { html, htmlPageResponse, type Html } from '../http/html-page';
import { SignupFormView, type SignupFormValues } from './signup-form';
import type { SignupFieldErrors } from '../subscribers/signup-schema';

/**
 * The pages POST /api/signup answers a form post with (a browser without JavaScript; with it, the
 * landing page posts JSON and shows the answer in place).
 */

/**
 * The form's look inside the shared page shell (html-page.ts styles buttons and text, not form
 * controls). The landing page's equivalent lives in app/globals.css. Allowed by the shell's CSP
 * (`style-src 'unsafe-inline'`).
 */
const FORM_CSS = `
.signup-form{margin:20px 0 0}
.field{margin:0 0 18px;padding:0;border:0;min-width:0}
.field label,.field legend{display:block;font-weight:600;margin:0 0 4px;padding:0;color:var(--text)}
.field .hint{margin:0 0 6px;font-size:14px;color:var(--muted)}
.field .optional{font-weight:400;color:var(--muted)}
.field input[type=email],.field input[type=text],.field textarea{display:block;width:100%;font:inherit;padding:9px 11px;color:var(--text);background:var(--bg);border:1px solid var(--line);border-radius:8px}
.field textarea{resize:vertical;min-height:64px}
.field input:focus-visible,.field textarea:focus-visible{outline:3px solid var(--accent);outline-offset:1px}
.field [aria-invalid=true]{border-color:var(--danger)}
.field-error,.form-error{margin:6px 0 0;font-size:14px;font-weight:600;color:var(--danger)}
.form-error{margin:0 0 16px}
.choices{display:grid;gap:6px}
.choice{display:flex;gap:8px;align-items:baseline}
.choice label{display:inline;font-weight:600;margin:0}
.choice .hint{display:inline;font-weight:400;margin:0}
.choice input{accent-color:var(--accent)}
.signup-form .fine{margin:16px 0 0}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`.trim();

/** React escapes every value it renders; loaded on first use, as the route never needs it otherwise. */
async function renderForm(values: SignupFormValues, errors: SignupFieldErrors): Promise<Html> {
  const { renderToStaticMarkup } = await import('react-dom/server');
  return { html: renderToStaticMarkup(<SignupFormView values={values} errors={errors} autoFocusFirstError />) };
}

/** The form again, with what the visitor typed and each error next to its field. */
export async function signupFormPage(input: { status: number; values: SignupFormValues; errors: SignupFieldErrors }): Promise<Response> {
  return htmlPageResponse({
    status: input.status,
    title: 'Check the form',
    styles: FORM_CSS,
    body: html`<h1>Almost there</h1>
<p>Some fields need a change before Scout can sign you up.</p>
${await renderForm(input.values, input.errors)}`,
  });
}

export function signupReceivedPage(input: { message: string }): Response {
  return htmlPageResponse({
    status: 202,
    title: 'Check your inbox',
    body: html`<h1>Check your inbox</h1>
<p>${input.message}</p>
<p class="fine">Nothing there after a few minutes? Look in your spam folder, or <a href="/#signup">sign up again</a> in ten minutes.</p>`,
  });
}

/** The submission as a whole was refused (too large, too many, our fault); nothing was changed. */
export function signupRefusedPage(input: { status: number; title: string; message: string; retryAfterSec?: number }): Response {
  const response = htmlPageResponse({
    status: input.status,
    title: input.title,
    tone: 'error',
    body: html`<h1>${input.title}</h1>
<p>${input.message}</p>
<p class="fine"><a href="/#signup">Back to the signup form</a></p>`,
  });
  if (input.retryAfterSec) response.headers.set('retry-after', String(input.retryAfterSec));
  return response;
}
