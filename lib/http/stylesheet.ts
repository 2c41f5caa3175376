/**
 * Scout's one stylesheet (public/scout.css), linked by every page: the landing page (app/layout.tsx)
 * and the pages route handlers render (lib/http/page.tsx). A static file rather than inline CSS,
 * so that both pages' policies allow it as `style-src 'self'`, and the handler pages need no
 * 'unsafe-inline' at all.
 */
export const STYLESHEET = '/scout.css';
