import type { Firestore } from 'firebase-admin/firestore';
import { aiEnabled, type Config } from '../runtime/config';
import { silentLogger, type Logger } from '../runtime/logger';
import { clientAddressOf } from '../http/client-address';
import { FORM_TYPE, mediaTypeOf, readBody } from '../http/read-body';
import { isSameOrigin } from '../http/same-origin';
import { parsePreview } from '../preview/preview-input';
import { invalidPreview, type PreviewPanelState } from '../preview/preview-panel';
import { renderPreviewBody } from '../preview/render-preview-body';
import { runPreview } from '../preview/run-preview';
import { formToSignupBody } from '../subscribers/signup-schema';
import { emptySignupValues, signupFormValuesOf } from './signup-form-values';
import { signupPreviewPage, signupRefusedPage } from './signup-page';

export type PreviewRequestDeps = {
  db: Firestore;
  config: Pick<Config, 'APP_URL' | 'LINK_SECRET' | 'DIGEST_HOUR_UTC' | 'VERCEL' | 'TRUSTED_PROXY_HOPS' | 'AI_BASE_URL' | 'AI_MODEL'>;
  now: Date;
  log?: Logger;
};

/** A preview is the form's few fields; anything bigger is not our form. */
export const MAX_PREVIEW_BODY_BYTES = 16 * 1024;

/** Each refusal of the request as a whole, worded once for JSON clients and for people. */
const REFUSALS = {
  crossSite: {
    status: 403,
    error: 'cross-site request refused: preview from Scout’s own page',
    title: 'This form was not sent from Scout',
    message: 'Previews are answered only for Scout’s own page.',
  },
  tooLarge: {
    status: 413,
    error: `request body too large: a preview is at most ${MAX_PREVIEW_BODY_BYTES / 1024} KB`,
    title: 'That is too much text',
    message: `A preview is at most ${MAX_PREVIEW_BODY_BYTES / 1024} KB. Use fewer or shorter keywords.`,
  },
  unsupported: {
    status: 415,
    error: 'unsupported content type: send application/json or application/x-www-form-urlencoded',
    title: 'This form could not be read',
    message: 'Send the form as a normal form post or as JSON.',
  },
  notUtf8: {
    status: 400,
    error: 'the request body must be UTF-8 text',
    title: 'This form could not be read',
    message: 'The form arrived in an encoding Scout does not read. Nothing was saved.',
  },
  serverError: {
    status: 500,
    error: 'something went wrong on our side; try again in a minute',
    title: 'Something went wrong',
    message: 'The preview could not be made. Nothing was saved. Please try again in a minute.',
  },
} as const;
type Refusal = (typeof REFUSALS)[keyof typeof REFUSALS];

/**
 * POST /api/preview: what the signup form's fields would have matched over the last week
 * (lib/preview). JSON in, JSON out for the forms' scripts: `{ preview, html }` (html: the panel's
 * content, rendered by its component), 400 with field errors (and `queryAt`, where a query that
 * does not parse goes wrong), 429 with Retry-After. A form post —
 * the signup form's Preview button without JavaScript — gets the signup page again, everything as
 * typed, with the panel filled in. Reads at most PREVIEW_MAX_POSTINGS postings; writes nothing but
 * its rate-limit counter.
 */
export async function handlePreviewRequest(request: Request, deps: PreviewRequestDeps): Promise<Response> {
  if (request.method !== 'POST') return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
  const log = deps.log ?? silentLogger;
  const isForm = mediaTypeOf(request.headers.get('content-type')) === FORM_TYPE;
  if (!isSameOrigin(request, deps.config.APP_URL)) {
    await request.body?.cancel().catch(() => undefined);
    return refuse(REFUSALS.crossSite, isForm);
  }
  const read = await readBody(request, { types: ['application/json', FORM_TYPE], maxBytes: MAX_PREVIEW_BODY_BYTES, utf8: 'strict' });
  if (!read.ok) {
    if (read.reason === 'unsupported-type') return refuse(REFUSALS.unsupported, false);
    return refuse(read.reason === 'too-large' ? REFUSALS.tooLarge : REFUSALS.notUtf8, isForm);
  }

  const body = decode(read.text, isForm);
  const values = isForm ? signupFormValuesOf(body as Record<string, string | string[]>) : emptySignupValues;
  const answer = (status: number, panel: PreviewPanelState, extra: AnswerExtra = {}) =>
    isForm
      ? signupPreviewPage({
          status,
          values,
          errors: extra.fields ?? {},
          preview: panel,
          defaultDigestHour: deps.config.DIGEST_HOUR_UTC,
          askAbout: aiEnabled(deps.config),
          retryAfterSec: extra.retryAfterSec,
        })
      : jsonAnswer(status, panel, extra);

  const parsed = parsePreview(body);
  if (!parsed.ok) return answer(400, invalidPreview(parsed.fields), { fields: parsed.fields, queryAt: parsed.queryAt });
  try {
    const outcome = await runPreview(deps, { clientAddress: clientAddressOf(request, deps.config), profile: parsed.input });
    if (outcome.kind === 'rate-limited') {
      log('preview.refused', { reason: 'rate-limit' });
      return await answer(429, { kind: 'rate-limited', retryAfterSec: outcome.retryAfterSec }, { retryAfterSec: outcome.retryAfterSec });
    }
    if (outcome.kind === 'busy') {
      log('preview.refused', { reason: 'window-budget' });
      return await answer(503, { kind: 'busy', retryAfterSec: outcome.retryAfterSec }, { retryAfterSec: outcome.retryAfterSec });
    }
    return await answer(200, { kind: 'shown', preview: outcome.preview });
  } catch (error) {
    log('preview.error', { error: error instanceof Error ? error.message : String(error) });
    return refuse(REFUSALS.serverError, isForm);
  }
}

/** The body as the schema reads it; text that is not JSON is left for the schema to refuse as "not an object". */
function decode(text: string, isForm: boolean): unknown {
  if (isForm) return formToSignupBody(new URLSearchParams(text));
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `queryAt`: where in the written query its error is (UTF-16 units of the trimmed text), for the page to mark it. */
type AnswerExtra = { fields?: object; queryAt?: number; retryAfterSec?: number };

async function jsonAnswer(status: number, panel: PreviewPanelState, extra: AnswerExtra): Promise<Response> {
  const html = await renderPreviewBody(panel);
  const body =
    panel.kind === 'shown'
      ? { preview: panel.preview, html }
      : panel.kind === 'rate-limited'
        ? { error: 'too many previews from your network; try again later', retryAfterSec: panel.retryAfterSec, html }
        : panel.kind === 'busy'
          ? { error: 'previews are busy for everyone; try again later', retryAfterSec: panel.retryAfterSec, html }
          : {
              error: 'invalid preview',
              fields: extra.fields ?? {},
              ...(extra.queryAt !== undefined ? { queryAt: extra.queryAt } : {}),
              html,
            };
  return Response.json(body, {
    status,
    headers: { 'cache-control': 'no-store', ...(extra.retryAfterSec ? { 'retry-after': String(extra.retryAfterSec) } : {}) },
  });
}

function refuse(refusal: Refusal, isForm: boolean): Response | Promise<Response> {
  if (isForm) return signupRefusedPage(refusal);
  return Response.json({ error: refusal.error }, { status: refusal.status, headers: { 'cache-control': 'no-store' } });
}
