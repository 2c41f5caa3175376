import { ErrorPage, Page, pageResponse } from '../http/page';
import { SignupFormView, type SignupFormValues } from './signup-form';
import type { SignupFieldErrors } from '../subscribers/signup-schema';

/**
 * The pages POST /api/signup answers a form post with (a browser without JavaScript; with it, the
 * landing page posts JSON and shows the answer in place). The form is the landing page's own
 * component, styled by the same stylesheet.
 */

/** The form again, with what the visitor typed and each error next to its field. */
export function signupFormPage(input: { status: number; values: SignupFormValues; errors: SignupFieldErrors }): Promise<Response> {
  return pageResponse(
    <Page title="Check the form">
      <h1>Almost there</h1>
      <p>Some fields need a change before Scout can sign you up.</p>
      <SignupFormView values={input.values} errors={input.errors} autoFocusFirstError />
    </Page>,
    { status: input.status },
  );
}

export function signupReceivedPage(input: { message: string }): Promise<Response> {
  return pageResponse(
    <Page title="Check your inbox">
      <h1>Check your inbox</h1>
      <p>{input.message}</p>
      <p className="fine">
        Nothing there after a few minutes? Look in your spam folder, or <a href="/#signup">sign up again</a> in ten minutes.
      </p>
    </Page>,
    { status: 202 },
  );
}

/** The submission as a whole was refused (too large, too many, our fault); nothing was changed. */
export function signupRefusedPage(input: { status: number; title: string; message: string; retryAfterSec?: number }): Promise<Response> {
  return pageResponse(
    <ErrorPage title={input.title}>
      <p>{input.message}</p>
      <p className="fine">
        <a href="/#signup">Back to the signup form</a>
      </p>
    </ErrorPage>,
    { status: input.status, headers: input.retryAfterSec ? { 'retry-after': String(input.retryAfterSec) } : {} },
  );
}
