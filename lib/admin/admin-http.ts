import { readCappedBody } from '../http/read-capped-body';
import { htmlPageResponse, type Page } from '../http/html-page';

/** The admin forms are a field or two; anything bigger is not ours. */
export const MAX_ADMIN_FORM_BYTES = 8 * 1024;

/**
 * Every admin response: the shell's no-store, no-referrer, CSP (frame-ancestors 'none',
 * form-action 'self'), plus X-Frame-Options for older browsers, plus the cookies to set.
 */
export function adminPageResponse(page: Page, cookies: string[] = []): Response {
  return withAdminHeaders(htmlPageResponse(page), cookies);
}

/** The ops page when the store does not answer in time (withDeadline adds the 503 and Retry-After). */
export function adminUnavailablePage(): Response {
  return withAdminHeaders(
    new Response('<!doctype html><title>Scout ops</title><p>The database did not answer in time. Try again in a minute.</p>', {
      headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; frame-ancestors 'none'" },
    }),
    [],
  );
}

/** POST → 303 → GET: a reload never repeats the action. */
export function adminRedirect(cookies: string[] = [], location = '/admin'): Response {
  return withAdminHeaders(new Response(null, { status: 303, headers: { location } }), cookies);
}

function withAdminHeaders(response: Response, cookies: string[]): Response {
  response.headers.set('cache-control', 'no-store');
  response.headers.set('x-frame-options', 'DENY');
  response.headers.set('referrer-policy', 'no-referrer');
  response.headers.set('x-content-type-options', 'nosniff');
  if (!response.headers.has('content-security-policy')) response.headers.set('content-security-policy', "frame-ancestors 'none'");
  for (const c of cookies) response.headers.append('set-cookie', c);
  return response;
}

/** The posted form, or null when it is not a form or is too big (the stream is cancelled, not read on). */
export async function readAdminForm(request: Request): Promise<URLSearchParams | null> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (type !== 'application/x-www-form-urlencoded' || declared > MAX_ADMIN_FORM_BYTES) {
    await request.body?.cancel().catch(() => undefined);
    return null;
  }
  const bytes = await readCappedBody(request.body, MAX_ADMIN_FORM_BYTES);
  return bytes ? new URLSearchParams(new TextDecoder().decode(bytes)) : null;
}
