/**
 * The headers every response carries, set in one place (proxy.ts). Pages that build their own
 * stricter policy (the token pages, the ops page: no script at all) keep it: a route's own header
 * replaces the proxy's of the same name.
 *
 * Scripts run only with this request's nonce: Next puts it on its own bootstrap and page scripts
 * when it finds the policy on the request, so nothing injected into a page can run. Styles keep
 * 'unsafe-inline' (style attributes, which nonces do not cover); a style cannot run code.
 */
export function securityHeaders(input: { nonce: string; https: boolean }): Record<string, string> {
  const policy = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${input.nonce}' 'strict-dynamic'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-security-policy': policy,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    // Confirm, preferences and unsubscribe links carry a token in the URL: no page ever leaks its URL.
    'referrer-policy': 'no-referrer',
    // Browsers ignore HSTS received over plain http, so a forged https signal gains nothing.
    ...(input.https ? { 'strict-transport-security': 'max-age=63072000; includeSubDomains' } : {}),
  };
}

/**
 * The script nonce proxy.ts put on this request's policy, for a page a route handler renders:
 * Next sends the proxy's policy on the response in place of the handler's own, so a script the
 * page loads must carry this nonce. Null when the handler is called without the proxy (the
 * handler's own policy then applies). The proxy overwrites the header on every request, so a
 * client cannot choose it; and a wrong one could only block our own script.
 */
export function scriptNonceOf(request: Request): string | null {
  return /'nonce-([A-Za-z0-9+/=]+)'/.exec(request.headers.get('content-security-policy') ?? '')?.[1] ?? null;
}

/** 128 random bits, base64: unguessable per response, as a CSP nonce must be. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}
