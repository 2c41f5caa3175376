import { clientAddressOf } from '../http/client-address';
import { FORM_TYPE, mediaTypeOf, readBody } from '../http/read-body';
import { isSameOrigin } from '../http/same-origin';
import { aiEnabled } from '../runtime/config';
import type { EmailSuggestion } from './signup-form';
import { emptySignupValues, signupFormValuesOf, type SignupFormValues } from './signup-form-values';
import { signupChangePage, signupFormPage, signupReceivedPage, signupRefusedPage } from './signup-page';
import { formToSignupBody, parseSignup, signupActionOf, type SignupFieldErrors } from '../subscribers/signup-schema';
import { emailTypoSuggestion } from '../subscribers/email-typo';
import { signUp, type SignupDeps } from './signup';

export const MAX_SIGNUP_BODY_BYTES = 16 * 1024;

/**
 * The JSON answer to every accepted signup (and resend): new address, unconfirmed, subscribed,
 * unsubscribed or held back by its rate limit all read the same, so the form cannot be used to
 * learn who subscribes. A JSON client knows the address it sent; the pages name it
 * (signup-received.tsx: the form-post page, which the form script also shows in place).
 */
export const SIGNUP_ACCEPTED_MESSAGE =
  'We have sent an email to the address you entered. Open the link in it to confirm your subscription (or, if you are already subscribed, to manage it).';

export type SignupRequestDeps = SignupDeps & { now: Date };

/** Each refusal, worded once for JSON clients and for people. */
const REFUSALS = {
  crossSite: {
    status: 403,
    error: 'cross-site request refused: post the signup from Scout’s own page (Origin must be the app’s own)',
    title: 'This form was not sent from Scout',
    message: 'Signups are accepted only from Scout’s own page. Nothing was saved and no email was sent: open Scout and sign up there.',
  },
  tooLarge: {
    status: 413,
    error: `request body too large: a signup is at most ${MAX_SIGNUP_BODY_BYTES / 1024} KB`,
    title: 'That is too much text',
    message: `A signup is at most ${MAX_SIGNUP_BODY_BYTES / 1024} KB. Use fewer or shorter keywords (up to 25, each up to 60 characters).`,
  },
  unsupported: {
    status: 415,
    error: 'unsupported content type: send application/json or application/x-www-form-urlencoded',
    title: 'This form could not be read',
    message: 'Send the signup form as a normal form post or as JSON.',
  },
  rateLimited: {
    status: 429,
    error: 'too many signups from your network; try again later',
    title: 'Too many signups',
    message: 'Too many signups came from your network in the last hour. Please try again later.',
  },
  serverError: {
    status: 500,
    error: 'something went wrong on our side; try again in a minute',
    title: 'Something went wrong',
    message: 'Something went wrong on our side and you were not signed up. Please try again in a minute.',
  },
} as const;

type Refusal = (typeof REFUSALS)[keyof typeof REFUSALS];

/**
 * POST /api/signup: origin → read (capped) → parse → typo check → signUp → answer. A JSON body
 * gets JSON; a form post (no JavaScript) gets a page: "check your inbox" naming the address, or the
 * form again with its errors and values. A request from another site's page is refused before
 * anything is read or written; one with no Origin at all is not from a browser page (curl, a
 * script) and may use the JSON API.
 *
 * An address whose domain looks like a typo of a big provider's (gmial.con) is not signed up: the
 * answer names the suggestion (JSON: 400 with `fields.email` and `emailSuggestion`), and the
 * visitor signs up by sending the address they meant as `confirmedEmail` — the suggestion, or
 * what they typed, "anyway". `action=resend` ("Send it again") is the same signup once more;
 * `action=change` ("Not you? Change it", a form post) answers the form as it was sent, email field
 * focused, and writes nothing.
 */
export async function handleSignupRequest(request: Request, deps: SignupRequestDeps): Promise<Response> {
  if (request.method !== 'POST') return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
  const isForm = mediaTypeOf(request.headers.get('content-type')) === FORM_TYPE;
  // A page on another site could otherwise post our form and mail any address from its visitors' networks.
  if (!isSameOrigin(request, deps.config.APP_URL)) {
    await request.body?.cancel().catch(() => undefined);
    deps.log('signup.refused', { reason: 'origin' });
    return refuse(REFUSALS.crossSite, isForm);
  }

  const read = await readBody(request, { types: ['application/json', FORM_TYPE], maxBytes: MAX_SIGNUP_BODY_BYTES, utf8: 'strict' });
  if (!read.ok) {
    if (read.reason === 'unsupported-type') return refuse(REFUSALS.unsupported, false);
    if (read.reason === 'too-large') return refuse(REFUSALS.tooLarge, isForm);
    return invalid({ body: 'the request body must be UTF-8 text' }, isForm, emptySignupValues, deps);
  }

  const body = decodeBody(read.text, isForm);
  if (!body.ok) return invalid(body.errors, isForm, emptySignupValues, deps);
  const values = isForm ? signupFormValuesOf(body.value as Record<string, string | string[]>) : emptySignupValues;
  const askAbout = aiEnabled(deps.config);
  const action = signupActionOf(body.value);
  if (action === null) return invalid({ body: 'action must be signup, resend or change' }, isForm, values, deps);
  if (action === 'change') {
    if (isForm) return signupChangePage({ values, defaultDigestHour: deps.config.DIGEST_HOUR_UTC, askAbout });
    return json(400, {
      error: 'invalid signup',
      fields: { body: 'change is the page’s own button: a JSON client changes its own fields' },
    });
  }
  const parsed = parseSignup(body.value);
  if (!parsed.ok) return invalid(parsed.fields, isForm, values, deps);

  const suggested = parsed.emailConfirmed ? null : emailTypoSuggestion(parsed.input.email);
  if (suggested) {
    deps.log('signup.email_suggested', { domain: suggested.slice(suggested.lastIndexOf('@') + 1) });
    return askAboutTypo({ typed: parsed.input.email, suggested, asked: true }, isForm, values, deps);
  }

  try {
    const context = { clientAddress: clientAddressOf(request, deps.config), now: deps.now, resend: action === 'resend' };
    const outcome = await signUp(deps, parsed.input, context);
    if (outcome.kind === 'client-rate-limited') return await refuse(REFUSALS.rateLimited, isForm, outcome.retryAfterSec);
  } catch (error) {
    deps.log('signup.error', { error: error instanceof Error ? error.message : String(error) });
    return refuse(REFUSALS.serverError, isForm);
  }
  if (!isForm) return json(202, { ok: true, message: SIGNUP_ACCEPTED_MESSAGE });
  return signupReceivedPage({ email: parsed.input.email, values: { ...values, email: parsed.input.email }, resent: action === 'resend' });
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers: { 'cache-control': 'no-store', ...headers } });

function refuse(refusal: Refusal, isForm: boolean, retryAfterSec?: number): Response | Promise<Response> {
  if (isForm) return signupRefusedPage({ ...refusal, retryAfterSec });
  return json(refusal.status, { error: refusal.error }, retryAfterSec ? { 'retry-after': String(retryAfterSec) } : {});
}

function invalid(
  errors: SignupFieldErrors,
  isForm: boolean,
  values: SignupFormValues,
  deps: Pick<SignupRequestDeps, 'config'>,
): Response | Promise<Response> {
  const page = { status: 400, values, errors, defaultDigestHour: deps.config.DIGEST_HOUR_UTC, askAbout: aiEnabled(deps.config) };
  if (isForm) return signupFormPage(page);
  return json(400, { error: 'invalid signup', fields: errors });
}

/** "Did you mean …?": nothing written, nothing counted; the visitor answers with `confirmedEmail`. */
function askAboutTypo(
  suggestion: EmailSuggestion,
  isForm: boolean,
  values: SignupFormValues,
  deps: Pick<SignupRequestDeps, 'config'>,
): Response | Promise<Response> {
  const errors = { email: `did you mean ${suggestion.suggested}?` };
  if (isForm)
    return signupFormPage({
      status: 400,
      values,
      errors,
      emailSuggestion: suggestion,
      defaultDigestHour: deps.config.DIGEST_HOUR_UTC,
      askAbout: aiEnabled(deps.config),
    });
  return json(400, { error: 'check the email address', fields: errors, emailSuggestion: suggestion.suggested });
}

type DecodedBody = { ok: true; value: unknown } | { ok: false; errors: SignupFieldErrors };

function decodeBody(text: string, isForm: boolean): DecodedBody {
  if (isForm) return { ok: true, value: formToSignupBody(new URLSearchParams(text)) };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, errors: { body: 'the request body is not valid JSON' } };
  }
}
