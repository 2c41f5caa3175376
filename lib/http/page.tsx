import type { ReactNode } from 'react';
import { FORM_SCRIPT } from './form-script';
import { STYLESHEET } from './stylesheet';
import { FAVICON_ICO, FAVICON_SVG } from './favicon';
import { PAGE_POLICY } from './security-headers';

export { PAGE_POLICY };

/**
 * The shell of every page Scout answers with, the landing page included: a React component,
 * rendered to static markup by a route handler. React escapes every text and attribute value;
 * nothing here or in a view uses dangerouslySetInnerHTML, so feed, subscriber and operator text
 * can never become markup. No page has an inline script; a page with a form that a script makes
 * better (`formScript`: the signup form, the preferences form) loads Scout's one bundled form
 * script, a static file (lib/client).
 */

export type PageProps = {
  title: string;
  /** `error` colours the heading: something did not happen. */
  tone?: 'normal' | 'error';
  /**
   * The body's layout class in scout.css: `card` (a short page), `card admin`, `card admin ops`;
   * `site`, the landing page's, adds its header, skip link and footer.
   */
  layout?: string;
  /** Loads FORM_SCRIPT: the page has a form it makes better. */
  formScript?: boolean;
  /** A page meant to be found (the landing page): indexed, with this description. Every other page is kept out of indexes. */
  description?: string;
  children: ReactNode;
};

export function Page({ title, tone = 'normal', layout = 'card', formScript = false, description, children }: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {description ? <meta name="description" content={description} /> : <meta name="robots" content="noindex, nofollow" />}
        <meta name="referrer" content="no-referrer" />
        <title>{`${title} · Scout`}</title>
        <link rel="icon" href={FAVICON_ICO} sizes="32x32" />
        <link rel="icon" href={FAVICON_SVG} type="image/svg+xml" />
        <link rel="stylesheet" href={STYLESHEET} />
        {formScript ? <script src={FORM_SCRIPT} defer /> : null}
      </head>
      {layout === 'site' ? (
        <body className="site">
          <a className="skip-link" href="#main">
            Skip to content
          </a>
          <header className="site-header">
            <a className="brand" href="/">
              Scout
            </a>
          </header>
          <main id="main" className={tone}>
            {children}
          </main>
          <footer className="site-footer">
            <p>Scout sends job alerts by email. Every email has a one-click unsubscribe link.</p>
          </footer>
        </body>
      ) : (
        <body className={layout}>
          <main className={tone}>
            <p className="brand">
              <a href="/">Scout</a>
            </p>
            {children}
          </main>
        </body>
      )}
    </html>
  );
}

export type PageResponseInit = {
  status: number;
  /** Extra headers (Retry-After); they cannot replace the security headers below. */
  headers?: Record<string, string>;
  /** Set-Cookie values, one header each. */
  cookies?: string[];
  /** The landing page (its <Page description>): search engines may index it. */
  indexable?: boolean;
};

/**
 * A complete response for a <Page>. A link page's URL carries a credential (the token), so no page
 * is ever cached, framed or sniffed, never leaks its URL in a Referer, and may only post back to
 * Scout; only the landing page may be indexed.
 *
 * react-dom/server is imported when a page is rendered, not at the top: Next compiles route
 * handlers for the Server Components layer, where a static import of it fails the build; a
 * dynamic one is resolved for server rendering.
 */
export async function pageResponse(page: ReactNode, init: PageResponseInit): Promise<Response> {
  const { renderToStaticMarkup } = await import('react-dom/server');
  const headers = new Headers(init.headers);
  headers.set('content-type', 'text/html; charset=utf-8');
  headers.set('cache-control', 'no-store');
  if (!init.indexable) headers.set('x-robots-tag', 'noindex, nofollow');
  headers.set('referrer-policy', 'no-referrer');
  headers.set('x-content-type-options', 'nosniff');
  headers.set('x-frame-options', 'DENY');
  headers.set('content-security-policy', PAGE_POLICY);
  for (const cookie of init.cookies ?? []) headers.append('set-cookie', cookie);
  return new Response(`<!doctype html>${renderToStaticMarkup(page)}`, { status: init.status, headers });
}

/** A page that says why something did not happen: its title as the heading, then the message. */
export function ErrorPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Page title={title} tone="error">
      <h1>{title}</h1>
      {children}
    </Page>
  );
}

/** Our fault, not the link's: `couldNot` says what failed, and the visitor may try again. */
export function ServerErrorPage({ couldNot }: { couldNot: string }) {
  return (
    <Page title="Something went wrong" tone="error">
      <h1>Something went wrong on our side</h1>
      <p>{couldNot} Please try the link again in a minute.</p>
    </Page>
  );
}

export const serverErrorResponse = (couldNot: string) => pageResponse(<ServerErrorPage couldNot={couldNot} />, { status: 500 });
