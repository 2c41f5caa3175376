import { Page, pageResponse } from './page';

/** Any address Scout has no page for: said plainly, in the landing page's layout, with the way back. */
export function notFoundResponse(): Promise<Response> {
  return pageResponse(
    <Page title="Page not found" layout="site">
      <section className="hero" aria-labelledby="not-found-title">
        <p className="eyebrow">404</p>
        <h1 id="not-found-title">Page not found</h1>
        <p className="lead">There is nothing at this address.</p>
        <p>
          <a href="/">Back to Scout</a>
        </p>
      </section>
    </Page>,
    { status: 404 },
  );
}
