import { readForm } from '../http/read-body';

/** The admin forms are a field or two; anything bigger is not ours. */
export const MAX_ADMIN_FORM_BYTES = 8 * 1024;

/** POST → 303 → GET: a reload never repeats the action. No body, so only the headers a page would carry. */
export function adminRedirect(cookies: string[] = [], location = '/admin'): Response {
  const response = new Response(null, { status: 303, headers: { location } });
  response.headers.set('cache-control', 'no-store');
  response.headers.set('x-frame-options', 'DENY');
  response.headers.set('referrer-policy', 'no-referrer');
  response.headers.set('x-content-type-options', 'nosniff');
  response.headers.set('content-security-policy', "frame-ancestors 'none'");
  for (const c of cookies) response.headers.append('set-cookie', c);
  return response;
}

/** The posted form, or null when it is not a form or is too big (the stream is cancelled, not read on). */
export async function readAdminForm(request: Request): Promise<URLSearchParams | null> {
  const form = await readForm(request, MAX_ADMIN_FORM_BYTES);
  return form.ok ? form.fields : null;
}
