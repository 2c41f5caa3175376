/**
 * Scout's icon (public/favicon.ico, with an SVG of the same mark for browsers that take one),
 * linked by every page: the landing page (app/layout.tsx) and the pages route handlers render
 * (lib/http/page.tsx). /favicon.ico is also where a browser looks unasked, so it must exist.
 */
export const FAVICON_ICO = '/favicon.ico';
export const FAVICON_SVG = '/favicon.svg';
