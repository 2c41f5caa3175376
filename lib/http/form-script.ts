/**
 * The one script a route-handler page may load (public/scout-forms.js): the preferences form's
 * time zone from the browser and its debounced preview. A static file, for the reason the
 * stylesheet is one (stylesheet.ts): no inline script. Served through the proxy, the page carries
 * the app's policy (`'nonce-…' 'strict-dynamic'`, security-headers.ts), so the tag carries the
 * request's nonce (scriptNonceOf); the handler's own policy, when no proxy replaces it, allows
 * `script-src 'self'`. The landing page does the same in its React component (app/signup-form.tsx).
 */
export const FORM_SCRIPT = '/scout-forms.js';
