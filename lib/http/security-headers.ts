/**
 * The one content security policy of every page (lib/http/page.tsx), and of every other response
 * (the API's JSON, Next's own answers), which load nothing and so lose nothing by it.
 *
 * Scripts only from Scout's own origin: the bundled form script (lib/client), a file it serves,
 * never inline, so the policy needs no per-request nonce. It may fetch only from Scout (POST
 * /api/preview, /api/signup); forms post only back to Scout. Styles from the stylesheet, and
 * inline style attributes: the landing page's sample card is the emails' own card
 * (lib/mail/templates), styled inline as an email must be. A style cannot run code, and every text
 * on a page is escaped by React, so no one else's markup can carry one.
 */
export const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The headers every response carries, set in one place (proxy.ts); the pages set the same ones
 * themselves (pageResponse), so a handler called without the proxy answers alike.
 */
export function securityHeaders(input: { https: boolean }): Record<string, string> {
  return {
    'content-security-policy': PAGE_POLICY,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    // Confirm, preferences and unsubscribe links carry a token in the URL: no page ever leaks its URL.
    'referrer-policy': 'no-referrer',
    // Browsers ignore HSTS received over plain http, so a forged https signal gains nothing.
    ...(input.https ? { 'strict-transport-security': 'max-age=63072000; includeSubDomains' } : {}),
  };
}
