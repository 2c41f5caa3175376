/**
 * The one script a route-handler page may load (public/scout-forms.js): the preferences form's
 * time zone from the browser and its debounced preview. A static file, for the reason the
 * stylesheet is one (stylesheet.ts): the page's policy then allows it as `script-src 'self'`,
 * with no inline script and no nonce to thread through a handler. The landing page does the same
 * in its React component (app/signup-form.tsx), under Next's nonce policy.
 */
export const FORM_SCRIPT = '/scout-forms.js';
