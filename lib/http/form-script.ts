/**
 * The one script a page may load: the form pages' enhancements (the signup form in place, the
 * preview as they type, the browser's time zone, the address typo hint). Written in TypeScript in
 * lib/client and bundled into this static file by scripts/build-client.mjs before Next builds or
 * starts (public/scout-forms.js is a build output, not in git). A static file for the reason the
 * stylesheet is one (stylesheet.ts): no inline script, so the policy needs no nonce.
 */
export const FORM_SCRIPT = '/scout-forms.js';
