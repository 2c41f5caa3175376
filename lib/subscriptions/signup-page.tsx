import { ErrorPage, Page, pageResponse } from '../http/page';
import { SignupFormView, type SignupFormValues } from './signup-form';
import type { SignupFieldErrors } from '../subscribers/signup-schema';
import type { PreviewPanelState } from '../preview/preview-panel';
import { timeZoneChoices } from './schedule-fields';

/**
 * The pages POST /api/signup answers a form post with (a browser without JavaScript; with it, the
 * landing page posts JSON and shows the answer in place). The form is the landing page's own
 * component, styled by the same stylesheet.
 */

/** The form again, with what the visitor typed and each error next to its field. */
export function signupFormPage(input: {
  status: number;
  values: SignupFormValues;
  errors: SignupFieldErrors;
  defaultDigestHour: number;
}): Promise<Response> {
  return pageResponse(
    <Page title="Check the form">
      <h1>Almost there</h1>
      <p>Some fields need a change before Scout can sign you up.</p>
      <SignupFormView
        values={input.values}
        errors={input.errors}
        timeZones={timeZoneChoices(input.values.timezone)}
        defaultDigestHour={input.defaultDigestHour}
        autoFocusFirstError
      />
    </Page>,
    { status: input.status },
  );
}

/**
 * The answer to the form's Preview button without JavaScript (POST /api/preview, form-encoded):
 * the same form with everything as typed, its preview panel filled in (or the fields a preview
 * needs fixed, next to them), ready to change and preview again or to sign up.
 */
export function signupPreviewPage(input: {
  status: number;
  values: SignupFormValues;
  errors: SignupFieldErrors;
  preview: PreviewPanelState;
  defaultDigestHour: number;
  retryAfterSec?: number;
}): Promise<Response> {
  const invalid = Object.keys(input.errors).length > 0;
  return pageResponse(
    <Page title={invalid ? 'Error: Preview' : 'Preview'}>
      <h1>What Scout would have sent you</h1>
      <p>Change anything and press Preview again, or sign up as it is.</p>
      <SignupFormView
        values={input.values}
        errors={input.errors}
        timeZones={timeZoneChoices(input.values.timezone)}
        defaultDigestHour={input.defaultDigestHour}
        preview={input.preview}
        autoFocusFirstError={invalid}
      />
    </Page>,
    { status: input.status, headers: input.retryAfterSec ? { 'retry-after': String(input.retryAfterSec) } : {} },
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
