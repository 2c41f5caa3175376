/**
 * CSRF for every POST a browser page makes to Scout (the ops page, the signup form): the request
 * must come from the app's own origin (APP_URL). A browser always sends Origin on a POST, and no
 * page can forge it or Sec-Fetch-Site.
 * - A real Origin must equal APP_URL's origin.
 * - `Origin: null` is what browsers send on a form POST from a page whose Referrer-Policy is
 *   no-referrer (ours are: the Fetch standard serialises the origin as null then), but also from
 *   sandboxed frames and opaque origins. It passes only with `Sec-Fetch-Site: same-origin`.
 * - No Origin at all is a client that is not a browser page (curl, a script, a test); it is
 *   refused when it says, through Sec-Fetch-Site, that it comes from another site.
 */
export function isSameOrigin(request: Request, appUrl: string): boolean {
  const origin = request.headers.get('origin');
  const site = request.headers.get('sec-fetch-site');
  if (origin === 'null') return site === 'same-origin';
  if (origin !== null) return origin === new URL(appUrl).origin;
  return site === null || site === 'same-origin';
}
