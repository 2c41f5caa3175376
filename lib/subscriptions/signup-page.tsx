import { ErrorPage, Page, pageResponse } from '../http/page';
import { SignupFormView, type EmailSuggestion } from './signup-form';
import type { SignupFormValues } from './signup-form-values';
import { SignupReceivedView } from './signup-received';
import type { SignupFieldErrors } from '../subscribers/signup-schema';
import type { PreviewPanelState } from '../preview/preview-panel';
import { timeZoneChoices } from './schedule-fields';

/**
 * The pages POST /api/signup answers a form post with (a browser without JavaScript; with it, the
 * landing page posts JSON and shows the answer in place). The form is the landing page's own
 * component, styled by the same stylesheet.
 */

/**
 * The form again, with what the visitor typed and each error next to its field; with
 * `emailSuggestion`, the address looked like a typo and the page asks which one they meant.
 */
export function signupFormPage(input: {
  status: number;
  values: SignupFormValues;
  errors: SignupFieldErrors;
  defaultDigestHour: number;
  askAbout: boolean;
  emailSuggestion?: EmailSuggestion | null;
}): Promise<Response> {
  return pageResponse(
    <Page title={input.emailSuggestion ? 'Check your email address' : 'Check the form'}>
      <h1>Almost there</h1>
      <p>
        {input.emailSuggestion
          ? 'Your email address looks like it has a typo. Choose the one you meant, and Scout signs you up.'
          : 'Some fields need a change before Scout can sign you up.'}
      </p>
      <SignupFormView
        previewHeadingLevel={2}
        values={input.values}
        errors={input.errors}
        askAbout={input.askAbout}
        emailSuggestion={input.emailSuggestion}
        timeZones={timeZoneChoices(input.values.timezone)}
        defaultDigestHour={input.defaultDigestHour}
        autoFocusFirstError
      />
    </Page>,
    { status: input.status },
  );
}

/** "Not you? Change it" without a script: the form as it was sent, the address field focused; nothing was written. */
export function signupChangePage(input: { values: SignupFormValues; defaultDigestHour: number; askAbout: boolean }): Promise<Response> {
  return pageResponse(
    <Page title="Change your email address">
      <h1>Change your email address</h1>
      <p>Everything else is as you left it. Correct the address and sign up again.</p>
      <SignupFormView
        previewHeadingLevel={2}
        values={input.values}
        errors={{}}
        askAbout={input.askAbout}
        timeZones={timeZoneChoices(input.values.timezone)}
        defaultDigestHour={input.defaultDigestHour}
        focusField="email"
      />
    </Page>,
    { status: 200 },
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
  askAbout: boolean;
  retryAfterSec?: number;
}): Promise<Response> {
  const invalid = Object.keys(input.errors).length > 0;
  return pageResponse(
    <Page title={invalid ? 'Error: Preview' : 'Preview'}>
      <h1>What Scout would have sent you</h1>
      <p>Change anything and press Preview again, or sign up as it is.</p>
      <SignupFormView
        previewHeadingLevel={2}
        values={input.values}
        errors={input.errors}
        askAbout={input.askAbout}
        timeZones={timeZoneChoices(input.values.timezone)}
        defaultDigestHour={input.defaultDigestHour}
        preview={input.preview}
        autoFocusFirstError={invalid}
      />
    </Page>,
    { status: input.status, headers: input.retryAfterSec ? { 'retry-after': String(input.retryAfterSec) } : {} },
  );
}

/** A signup (or its "Send it again") accepted: the same page whatever Scout knew of the address (signup-received.tsx). */
export function signupReceivedPage(input: { email: string; values: SignupFormValues; resent: boolean }): Promise<Response> {
  return pageResponse(
    <Page title={input.resent ? 'Sent again' : 'Check your inbox'}>
      <SignupReceivedView email={input.email} values={input.values} resent={input.resent} />
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
