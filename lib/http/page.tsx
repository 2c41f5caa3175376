import type { ReactNode } from 'react';
import { FORM_SCRIPT } from './form-script';
import { STYLESHEET } from './stylesheet';
import { FAVICON_ICO, FAVICON_SVG } from './favicon';

/**
 * The shell of every page a route handler answers with (the link pages, the signup answers, the
 * ops page): a React component, rendered to static markup. React escapes every text and attribute
 * value; nothing here or in a view uses dangerouslySetInnerHTML, so feed, subscriber and operator
 * text can never become markup. No page has an inline script; only a page that asks for it
 * (`formScript`, the preferences form) loads Scout's one static form script.
 */

/** Route-handler pages run no script and load nothing but the stylesheet and the icon; forms post only back to Scout. */
export const PAGE_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * A page with the form script (FORM_SCRIPT): scripts from Scout's own origin only (files it
 * serves, never inline), which may fetch only from Scout (POST /api/preview). Everything else as PAGE_POLICY.
 */
export const FORM_SCRIPT_PAGE_POLICY =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export type PageProps = {
  title: string;
  /** `error` colours the heading: something did not happen. */
  tone?: 'normal' | 'error';
  /** The body's layout class in scout.css: `card` (a short page), `card admin`, `card admin ops`. */
  layout?: string;
  /**
   * Loads FORM_SCRIPT, with the request's script nonce (scriptNonceOf: null without the proxy); the
   * response must then be made with `formScript: true` too.
   */
  formScript?: { nonce: string | null };
  children: ReactNode;
};

export function Page({ title, tone = 'normal', layout = 'card', formScript, children }: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <title>{`${title} · Scout`}</title>
        <link rel="icon" href={FAVICON_ICO} sizes="32x32" />
        <link rel="icon" href={FAVICON_SVG} type="image/svg+xml" />
        <link rel="stylesheet" href={STYLESHEET} />
        {formScript ? <script src={FORM_SCRIPT} nonce={formScript.nonce ?? undefined} defer /> : null}
      </head>
      <body className={layout}>
        <main className={tone}>
          <p className="brand">
            <a href="/">Scout</a>
          </p>
          {children}
        </main>
      </body>
    </html>
  );
}

export type PageResponseInit = {
  status: number;
  /** Extra headers (Retry-After); they cannot replace the security headers below. */
  headers?: Record<string, string>;
  /** Set-Cookie values, one header each. */
  cookies?: string[];
  /** The page loads FORM_SCRIPT (its <Page formScript>): FORM_SCRIPT_PAGE_POLICY instead of PAGE_POLICY. */
  formScript?: boolean;
};

/**
 * A complete response for a <Page>. A link page's URL carries a credential (the token), so no page
 * is ever cached, indexed, framed or sniffed, never leaks its URL in a Referer, and may only post
 * back to Scout.
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
  headers.set('x-robots-tag', 'noindex, nofollow');
  headers.set('referrer-policy', 'no-referrer');
  headers.set('x-content-type-options', 'nosniff');
  headers.set('x-frame-options', 'DENY');
  headers.set('content-security-policy', init.formScript ? FORM_SCRIPT_PAGE_POLICY : PAGE_POLICY);
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
